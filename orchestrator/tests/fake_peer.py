"""A test double for a peer: just enough of the contract to drive the runner's failure paths.

FAKE_SERVER / FAKE_CLIENT in the environment choose the behaviour (see MODES)."""
import json
import os
import signal
import socket
import sys


def flags(argv):
    return dict(zip(argv[1::2], argv[2::2]))


def serve(f, mode):
    if mode == "unsupported":
        sys.stderr.write("ipclab-peer: unsupported: --nodelay off: this library keeps TCP_NODELAY\n")
        sys.exit(7)
    if mode == "die":
        sys.stderr.write("fake: cannot bind, giving up\n")
        sys.exit(5)
    if mode == "garbage":
        print("hello", flush=True)
    if mode in ("garbage", "no-ready"):
        sys.stdin.buffer.read()  # blocks until the lifeline closes
        return
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    contract = 1 if mode == "stale" else 6   # "stale": a peer built before contract 2
    print("READY " + json.dumps({"endpoint": "127.0.0.1:%d" % listener.getsockname()[1],
                                 "runtime": "fake 1", "pid": os.getpid(),
                                 "contract": contract}), flush=True)
    if mode == "kill-self-on-connect":
        listener.accept()
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "ignore-term":
        while True:
            signal.pause()
    sys.stdin.buffer.read()


def drive(f, mode):
    n = int(f["--iterations"])
    result = {"schema": "ipclab.peer-result/1", "status": "ok", "error_kind": None, "error": None,
              "runtime": "fake 1", "samples": n, "contract": 6, "warmup_samples": 0}
    if mode == "hang":
        signal.pause()
    if mode == "unsupported":
        result.update(status="error", error_kind="unsupported",
                      error="--rest-body json: this client sends octets only")
        n = 0
    if mode == "crash":
        sys.stderr.write("fake: segfault-ish\n")
        sys.exit(1)
    if mode == "connect":
        host, port = f["--endpoint"].rsplit(":", 1)
        conn = socket.create_connection((host, int(port)))
        while conn.recv(4096):
            pass
        result.update(status="error", error_kind="io", error="end of stream from the server")
        n = 0
    if mode == "mismatch":
        result.update(status="error", error_kind="payload-mismatch",
                      error="payload mismatch at sequence 3, offset 15")
    written = n - 1 if mode == "short" else n
    with open(f["--samples-file"], "wb") as out:
        for i in range(written):
            out.write((1000 + i % 7).to_bytes(8, "little", signed=True))
    if "--warmup-samples-file" in f:
        warmup = int(f.get("--warmup", "0"))
        with open(f["--warmup-samples-file"], "wb") as out:
            for i in range(warmup):   # a warm-up curve: slower first, settling at 1000 ns
                out.write((1000 + 5000 // (i + 1)).to_bytes(8, "little", signed=True))
        result["warmup_samples"] = warmup
    with open(f["--result-file"], "w") as out:
        json.dump(result, out)
    sys.exit({"ok": 0, "short": 0, "connect": 5, "mismatch": 3, "unsupported": 7}.get(mode, 0))


def capabilities(mode):
    """FAKE_CAPABILITIES: "ok" claims what FAKE_CLAIMS (JSON: mechanism -> roles) says;
    "stale" answers as a contract-1 peer would (unknown subcommand, exit 2)."""
    if mode == "stale":
        sys.stderr.write("ipclab-peer: usage: unknown subcommand 'capabilities'\n")
        sys.exit(2)
    claims = json.loads(os.environ.get("FAKE_CLAIMS", '{"tcp": ["serve", "drive"]}'))
    print(json.dumps({"contract": int(os.environ.get("FAKE_CONTRACT", "6")), "language": "fake",
                      "runtime": "fake 1",
                      "mechanisms": {m: {"roles": r, "patterns": ["rr"], "max_payload": 134217728}
                                     for m, r in claims.items()}}))


if __name__ == "__main__":
    role, f = sys.argv[1], flags(sys.argv[1:])
    if role == "capabilities":
        capabilities(os.environ.get("FAKE_CAPABILITIES", "ok"))
    elif role == "serve":
        serve(f, os.environ.get("FAKE_SERVER", "ok"))
    else:
        drive(f, os.environ.get("FAKE_CLIENT", "ok"))
