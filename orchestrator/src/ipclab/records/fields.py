"""The names of the fields a measurement adds to a case's record or a round's entry, written by
execute/ and read by analyse/ and output/ (the CSV's columns, the study tables' rows)."""

# Pattern burst (PROTOCOL.md 11.4): the phases a burst server times per connection (11.4.3),
# its client's (11.4.4), and the kernel's TcpExt counters read around a case where it listens.
BURST_PHASES = ("accept", "loop", "spawn", "start_delay", "transfer", "total")
BURST_CLIENT_PHASES = ("connect", "response", "total")
BURST_COUNTERS = ("listen_overflows", "listen_drops", "syn_retrans")

# A stream round's entry keeps these of its client's result file (PROTOCOL.md 11.1).
STREAM_RESULT = ("messages", "message_size", "windows", "stream_ns", "lost", "client_cpu",
                 "server_cpu")

# --explain (docs/explain.md): per side, what is counted per call (perf's software events and
# tracepoints, then a struct rusage's parts), its top system calls; the counting's own cost and
# the copies the model prices.
EXPLAIN_SIDES = ("client", "server")
EXPLAIN_COUNTS = ("syscalls", "migrations", "voluntary", "involuntary", "page_faults", "cpu_us",
                  "user_us", "system_us")
EXPLAIN_FIELDS = (*(f"explain_{side}_{name}" for side in EXPLAIN_SIDES
                    for name in (*EXPLAIN_COUNTS, "top")),
                  "explain_counting_cost", "explain_copies")

# --wire-bytes (docs/wire.md): per-call bytes each way on the wire, packets, a connection's own
# bytes, and the application's bytes beside them.
WIRE_FIELDS = ("wire_req_bytes", "wire_resp_bytes", "wire_packets_per_call", "wire_conn_bytes",
               "app_req_bytes", "app_resp_bytes")
