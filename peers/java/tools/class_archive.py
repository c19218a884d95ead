"""Builds the Java peer's class-data-sharing archive (AppCDS): the classes a server and a client
load, stored in the form the JVM maps at start-up instead of reading and verifying them from the
jar. A peer then starts in about half the time (0.6 s -> 0.3 s here, most of it Jackson), which
every case pays for each Java side. Only class loading is cached: no compiled code, no profiles,
so what a case measures after its warm-up is unchanged.

Usage: class_archive.py JDK_HOME   (run from the checkout, after the jar is built; peer.toml's
build list calls it). The JVM flags are peer.toml's own `command`, so the archive matches the
JVM that uses it; a stale or missing archive only costs the start-up time back (the JVM says so
on stderr, never on stdout, where the READY line goes)."""
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path.cwd()
ARCHIVE_FLAG = "-XX:SharedArchiveFile="


def peer_command(jdk):
    """(peer.toml's command with {jdk} and {root} filled, without its archive flag; the
    archive's path, which that flag names)."""
    command = tomllib.loads((ROOT / "peers/java/peer.toml").read_text())["command"]
    filled = [part.replace("{jdk}", jdk).replace("{root}", str(ROOT)) for part in command]
    [flag] = [part for part in filled if part.startswith(ARCHIVE_FLAG)]
    return [part for part in filled if part != flag], Path(flag[len(ARCHIVE_FLAG):])


# What a training run drives: tcp (Jackson, sockets, both patterns) and the mechanisms the Java
# IPC library reaches through FFM, whose downcall handles spin ~250 method-handle classes at start
# (an untrained sysv-mq peer starts in 1.2 s, a trained one in about half).
TRAINING = (("tcp", "127.0.0.1:0", ("rr", "stream")), ("uds", "uds.sock", ("rr",)),
            ("fifo", "fifo", ("rr",)), ("sysv-mq", "auto", ("rr",)), ("posix-mq", "auto", ("rr",)),
            ("sysv-shm", "auto", ("rr",)), ("shm-futex", "auto", ("rr",)))
SIZES = {"rr": ["--request-size", "16", "--response-size", "16", "--iterations", "200"],
         "stream": ["--message-size", "16", "--messages", "2000"]}


def train(java, lists):
    """Each training mechanism's server and clients, each JVM writing the classes it loaded."""
    for mechanism, endpoint, patterns in TRAINING:
        if endpoint in ("uds.sock", "fifo"):
            endpoint = str(lists / endpoint)
            if mechanism == "fifo":
                Path(endpoint).mkdir(mode=0o700)
        lines = run_one(java, lists, mechanism, endpoint, patterns)
        if lines is not None:
            sys.exit(f"class_archive: the {mechanism} training server printed {lines!r}, not READY")


def run_one(java, lists, mechanism, endpoint, patterns):
    """One server and a client per pattern; None, or the server's line when it was not READY."""
    def jvm(name):
        return [java[0], f"-XX:DumpLoadedClassList={lists / name}.lst", *java[1:]]
    server = subprocess.Popen([*jvm(f"serve-{mechanism}"), "serve", "--mechanism", mechanism,
                               "--endpoint", endpoint, "--seed", "1"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        line = server.stdout.readline().decode()
        if not line.startswith("READY "):
            return line[:200]
        ready = json.loads(line[6:])["endpoint"]
        for pattern in patterns:
            name = f"drive-{mechanism}-{pattern}"
            subprocess.run([*jvm(name), "drive", "--mechanism", mechanism, "--endpoint", ready,
                            "--pattern", pattern, *SIZES[pattern], "--warmup", "20",
                            "--samples-file", str(lists / f"{name}.samples"),
                            "--result-file", str(lists / f"{name}.json")],
                           check=True, stdout=subprocess.DEVNULL, timeout=60)
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    return None


def merged(lists):
    """The class lists one after the other, each line once, in first-seen order (a lambda line
    names classes listed before it). A class's " id: N" is dropped: ids are per list and only
    classes of custom loaders (none here) refer to them."""
    seen = {}
    for path in lists:
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                seen.setdefault(re.sub(r" id: \d+$", "", line), None)
    return list(seen)


def main():
    java, target = peer_command(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ipclab-cds-") as tmp:
        lists = Path(tmp)
        train(java, lists)
        classes = merged(sorted(lists.glob("*.lst")))
        (lists / "all.lst").write_text("\n".join(classes) + "\n")
        jar = str(ROOT / java[java.index("-jar") + 1])   # as the orchestrator passes it
        flags = java[1:java.index("-jar")]
        target.unlink(missing_ok=True)
        # The dump lists every class it skips (JFR's, for one) on stderr: shown only on failure.
        done = subprocess.run([java[0], *flags, "-Xshare:dump",
                               f"-XX:SharedClassListFile={lists / 'all.lst'}",
                               f"{ARCHIVE_FLAG}{target}", "-cp", jar],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            sys.exit(f"class_archive: the dump failed (exit {done.returncode}): "
                     f"{(done.stdout + done.stderr)[-2000:]}")
    print(f"class_archive: {len(classes)} entries in {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
