"""`ipclab hosts sync`: this checkout's commit brought to every host a scenario uses and built
there, each step printed as it ends.

Per host, over its ssh master: a git bundle of HEAD goes into the host's private directory (the
bytes on the channel's stdin, no shell string built from them), the host's checkout at `path`
fetches it and checks the commit out detached (a checkout is cloned from it where `path` has
none), then `make build` runs there (unless --no-build; it installs what the host lacks, as it
does here). A host whose checkout has changes of its own is left alone with a line saying so.
Only the commit travels: uncommitted changes here are named and stay here."""
import subprocess
import time
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.execute.ssh import Master, common_options
from ipclab.plan.hosts import every_host

BUILD_TIMEOUT = 3600  # seconds `make build` may take on a host (a fresh host installs packages)


def sync(hosts, root, private_dir, build, say):
    """Brings HEAD to every host of `hosts` ([hosts], plan/hosts.py); `say(line)` prints. Returns
    the lines of the hosts that could not be brought (empty: all are at this commit)."""
    revision = _git(root, "rev-parse", "HEAD")
    if _git(root, "status", "--porcelain", "--untracked-files=no"):
        say(f"local: uncommitted changes stay here: the hosts get commit {revision[:12]}")
    bundle = Path(private_dir) / "head.bundle"
    subprocess.run(["git", "-C", str(root), "bundle", "create", "-q", str(bundle), "HEAD"],
                   check=True, capture_output=True)
    common = common_options(hosts)
    problems = []
    for i, (host, role) in enumerate(every_host(hosts)):
        master = Master(host, common, Path(private_dir) / f"ssh-sync-{i}.log", role)
        try:
            master.start(hosts["source"])
            _one(master, host["path"], bundle, revision, build, say)
        except subprocess.TimeoutExpired:
            problems.append(f"{master.name}: make build took over {BUILD_TIMEOUT} s")
            say(problems[-1])
        except (UserError, SyncError) as e:
            line = f"{master.name}: {str(e).split(f'{role}: ', 1)[-1]}"
            problems.append(line)
            say(line)
        finally:
            master.end()
    return problems


class SyncError(Exception):
    pass


def _one(master, path, bundle, revision, build, say):
    there = f"{master.scratch}/head.bundle"
    with open(bundle, "rb") as f:
        _check(subprocess.run(master.command(["sh", "-c", 'cat > "$1"', "sh", there]), stdin=f,
                              capture_output=True, text=False), "cannot send the commit")
    say(f"{master.name}: sent commit {revision[:12]} ({bundle.stat().st_size / 1e6:.1f} MB)")
    if master.run(["test", "-d", f"{path}/.git"]).returncode != 0:
        _check(master.run(["git", "clone", "-q", "--no-checkout", there, path]),
               f"cannot clone it into {path}")
    elif master.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"]).stdout:
        raise SyncError(f"its checkout {path} has changes of its own: commit or drop them there, "
                        f"then sync again")
    else:
        _check(master.run(["git", "-C", path, "fetch", "-q", there, "HEAD"]), "cannot fetch it")
    _check(master.run(["git", "-C", path, "checkout", "-q", "--detach", revision]),
           f"cannot check out {revision[:12]} in {path}")
    say(f"{master.name}: {path} is at {revision[:12]}")
    if build:
        started = time.monotonic()
        say(f"{master.name}: make build …")
        done = master.run(["make", "-C", path, "build"], timeout=BUILD_TIMEOUT)
        _check(done, "make build failed")
        say(f"{master.name}: built in {time.monotonic() - started:.0f} s")


def _check(done, what):
    if done.returncode != 0:
        tail = done.stderr if isinstance(done.stderr, str) else done.stderr.decode(errors="replace")
        last = tail.strip().splitlines()[-1] if tail.strip() else f"exit {done.returncode}"
        raise SyncError(f"{what} ({last})")


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout.strip()
