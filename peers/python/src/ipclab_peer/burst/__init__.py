"""Pattern burst, the server side (PROTOCOL.md 11.4): server models timing every connection.

    server.py     serve --server-model: listen, READY, run the model, write the phases file
    models.py     the one table of server models
    exchange.py   one connection: REQUEST in, RESPONSE out, close; blocking and asyncio
    record.py     a connection's phases; the phases file; a child's report on the wire
    children.py   forked children: die with the server, report through a pipe, reaped
"""
