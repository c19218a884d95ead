"""Transports of PROTOCOL.md section 4.

    endpoints.py  endpoint grammars and the typed values they parse into
    connect.py    client connectors -> links (links.py)
    listeners.py  server listeners for stream-like links
    datagram.py   udp and uds-dgram, both roles
    channels.py, shm.py, sysvsem.py, files.py   message channels, shared memory, files

Which mechanism uses which connector and listener is written once, in ../mechanisms.py.
"""
