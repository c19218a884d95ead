"""A scenario's [hosts] table, validated: where the server runs (here, or on another host reached
with OpenSSH), where a case's one client runs, the hosts a burst's or a load's clients are
spread over, where their checkout is
(execute/places.py starts peers there), and an existing message broker to use instead of one per
round (PROTOCOL.md 4.7), and an existing Redis or NATS server likewise (4.10, 4.11)."""
import ipaddress
import re
from pathlib import Path

from ipclab.common.errors import UserError

HOST_KEYS = ("server", "client", "clients", "path", "server_address", "ssh_config", "broker",
             "redis", "redis_socket", "nats")
_HOST = r"([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])"
_SSH_URL = re.compile(rf"^ssh://(?:([A-Za-z0-9._-]+)@)?{_HOST}(?::(\d+))?$")
_AMQP_URL = re.compile(rf"^amqp://{_HOST}:(\d+)$")
_REDIS_URL = re.compile(rf"^redis://{_HOST}:(\d+)$")
_NATS_URL = re.compile(rf"^nats://{_HOST}:(\d+)$")


def parse_broker(raw, source):
    """hosts.broker: the amqp://HOST:PORT of an existing broker, which the orchestrator neither
    starts nor stops; None when absent (a private broker per round)."""
    url = (raw or {}).get("broker") if isinstance(raw, dict) else None
    if url is None:
        return None
    match = _AMQP_URL.match(str(url))
    if not match or not 0 < int(match.group(2)) < 65536:
        raise UserError(f"{source}: hosts.broker: {url!r} is not \"amqp://HOST:PORT\" (the AMQP "
                        f"connector of an existing broker)")
    return str(url)


def parse_redis(raw, source):
    """hosts.redis (`redis://HOST:PORT`, for redis-tcp) and hosts.redis_socket (an absolute
    socket path, for redis-uds): an existing Redis server the orchestrator neither starts nor
    stops (PROTOCOL.md 4.10), as {mechanism: address}; {} when absent."""
    raw = raw if isinstance(raw, dict) else {}
    found = {}
    url = raw.get("redis")
    if url is not None:
        match = _REDIS_URL.match(str(url))
        if not match or not 0 < int(match.group(2)) < 65536:
            raise UserError(f"{source}: hosts.redis: {url!r} is not \"redis://HOST:PORT\" (an "
                            f"existing Redis server, for redis-tcp)")
        found["redis-tcp"] = str(url)
    path = raw.get("redis_socket")
    if path is not None:
        if not isinstance(path, str) or not path.startswith("/") or "#" in path \
                or len(path) > 107:
            raise UserError(f"{source}: hosts.redis_socket: {path!r} must be the absolute path "
                            f"of an existing Redis server's Unix socket (for redis-uds), "
                            f"without '#'")
        found["redis-uds"] = path
    return found


def parse_nats(raw, source):
    """hosts.nats (`nats://HOST:PORT`): an existing NATS server the orchestrator neither starts
    nor stops (PROTOCOL.md 4.11), as {mechanism: address}; {} when absent."""
    url = raw.get("nats") if isinstance(raw, dict) else None
    if url is None:
        return {}
    match = _NATS_URL.match(str(url))
    if not match or not 0 < int(match.group(2)) < 65536:
        raise UserError(f"{source}: hosts.nats: {url!r} is not \"nats://HOST:PORT\" (an "
                        f"existing NATS server)")
    return {"nats": str(url)}


def parse_hosts(raw, source):
    """The scenario's [hosts] table, validated: {} when absent or when the server is local
    (`broker` is parse_broker's)."""
    if not raw:
        return {}
    if not isinstance(raw, dict):
        raise UserError(f"{source}: hosts must be a table ([hosts])")
    for key in raw:
        if key not in HOST_KEYS:
            raise UserError(f"{source}: unknown key 'hosts.{key}' (known: {', '.join(HOST_KEYS)})")
    server = raw.get("server", "local")
    if server == "local":
        for key in ("client", "clients"):
            if raw.get(key) not in (None, "local"):
                raise UserError(f"{source}: hosts.{key} needs hosts.server on another host too "
                                f"(the client hosts reach it at hosts.server_address)")
        return {}
    match = _SSH_URL.match(str(server))
    if not match:
        raise UserError(f"{source}: hosts.server: {server!r} is not \"local\" or "
                        f"\"ssh://[user@]host[:port]\"")
    path = raw.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise UserError(f"{source}: hosts.path: {path!r} must be the absolute path of an ipclab "
                        f"checkout, built, on {match.group(2)}")
    try:
        address = str(ipaddress.IPv4Address(str(raw.get("server_address"))))
    except ValueError:
        raise UserError(f"{source}: hosts.server_address: {raw.get('server_address')!r} must be "
                        f"the IPv4 address the server listens on there (and the client reaches)") from None
    config = raw.get("ssh_config")
    if config is not None and not Path(str(config)).is_file():
        raise UserError(f"{source}: hosts.ssh_config: {config!r}: no such file")
    return {"source": source, **_destination(server, match), "path": path,
            "server_address": address, "ssh_config": str(config) if config else None,
            "client": _client(raw.get("client", "local"), path, source),
            "clients": _clients(raw.get("clients"), path, source)}


def every_host(hosts):
    """[(host, its key)] of every other host a run uses: the server's, the client's, the
    clients'."""
    return [(hosts, "hosts.server"), *([(hosts["client"], "hosts.client")] if hosts.get("client")
                                       else []),
            *((c, "hosts.clients") for c in hosts.get("clients") or [])]


def _client(entry, path, source):
    """hosts.client: the host a case's one client runs on (None: here)."""
    return None if entry == "local" else _entry(entry, path, source, "hosts.client")


def _entry(entry, path, source, key):
    """A client host: "ssh://[user@]host[:port]", or a table {host = that, path = its
    checkout} where its checkout is not at hosts.path."""
    if isinstance(entry, dict):
        unknown = set(entry) - {"host", "path"}
        if unknown:
            raise UserError(f"{source}: {key}: unknown key {sorted(unknown)[0]!r} (known: host, "
                            f"path)")
        path = entry.get("path", path)
        if not isinstance(path, str) or not path.startswith("/"):
            raise UserError(f"{source}: {key}: path {path!r} must be the absolute path of an "
                            f"ipclab checkout there")
        entry = entry.get("host")
    match = _SSH_URL.match(str(entry))
    if not match:
        raise UserError(f"{source}: {key}: {entry!r} is not \"ssh://[user@]host[:port]\" "
                        f"(or {{ host = \"ssh://…\", path = \"/…\" }})")
    return {**_destination(entry, match), "path": path}


def _destination(url, match):
    """A host as the run reaches it: its URL (how the user named it), ssh's target and port."""
    user, host, port = match.groups()
    return {"server": str(url), "target": f"{user}@{host}" if user else host,
            "port": int(port) if port else None}


def _clients(raw, path, source):
    """hosts.clients: the hosts a burst's or a load's clients are spread over ([] when absent),
    each {"server": URL, "target", "port", "path"} like the server's."""
    if raw is None:
        return []
    if not isinstance(raw, list) or not raw:
        raise UserError(f"{source}: hosts.clients: {raw!r} must be a list of "
                        f"\"ssh://[user@]host[:port]\" (the hosts a burst's clients run on)")
    out = []
    for entry in raw:
        host = _entry(entry, path, source, "hosts.clients")
        if host["server"] in [c["server"] for c in out]:
            raise UserError(f"{source}: hosts.clients: {host['server']!r} is named twice")
        out.append(host)
    return out
