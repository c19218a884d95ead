"""Pattern load (PROTOCOL.md 11.5): open-loop requests on a schedule over persistent connections.

    schedule.py   the intended starts (11.5.2): fixed and poisson offsets, warm-up and measured
    client.py     the client (11.5.3): a thread per connection, sleeping to each intended start,
                  over a per-connection interface:
    frames.py     ... its connection over section 2's frames (tcp, uds; sysv-mq, posix-mq
                  through the shared request queue of 11.5.5)
    rpc.py        ... its connection over an RPC framework's calls (11.5.4)
    records.py    the records file and the result's fields (11.5.3, Files)
    exchange.py   the server side of one connection: section 2's rr exchange until END, for
                  the server models of burst/models.py (11.5.1)
    queue_server.py  the server over a message queue (11.5.5): loops over the one shared
                  request queue (iterative, thread-pool)
"""
