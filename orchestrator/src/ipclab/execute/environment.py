"""What a result needs beside its numbers: the machine and the software that produced it."""
import getpass
import os
import platform
import socket
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from ipclab import __version__
from ipclab.execute.probe import load_catalog, tool_version


def collect(root, catalog=None):
    catalog = catalog or load_catalog(root, check=False)
    vm, container = _virtualization()
    return {
        "hostname": socket.gethostname(),
        "user": getpass.getuser(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_allowed": sorted(os.sched_getaffinity(0)),
        "kernel": platform.release(),
        "os": _os_name(),
        "clocksource": _read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "virtualization": vm,
        "container": container,
        "cpu_governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "toolchains": _toolchains(catalog),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "ipclab": __version__,
        "git_revision": _git(root, "rev-parse", "HEAD"),
        "git_dirty": bool(_git(root, "status", "--porcelain", "--untracked-files=no")),
        "orchestrator_python": sys.executable,
    }


def warnings(env):
    notes = []
    if env.get("cpu_governor") not in (None, "performance"):
        notes.append(f"CPU frequency governor is {env['cpu_governor']!r}: clock speed changes "
                     f"under load; set it to 'performance' for steadier figures")
    if env.get("clocksource") not in (None, "tsc", "kvm-clock", "arch_sys_counter"):
        notes.append(f"clocksource {env['clocksource']!r} is slow to read; timings include that")
    if env.get("git_dirty"):
        notes.append("the checkout has uncommitted changes: the git revision does not fully "
                     "describe the code that ran")
    return notes


def _read(path):
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _cpu_model():
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def _os_name():
    for line in (_read("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def _toolchains(catalog):
    """Each language's runtime or compiler as its peer.toml's `version` command prints it."""
    out = {}
    for lang in catalog.languages.values():
        argv = lang.fill(lang.version) if lang.version else []
        out[lang.name] = tool_version(argv) if argv and not any("{" in a for a in argv) else None
    return out


CONTAINER_CGROUP_MARKERS = ("docker", "kubepods", "containerd", "libpod", "lxc", "crio")


def _virtualization():
    """(hypervisor, container): each a name, "none", or "unknown" — never a guess.

    The hypervisor comes from systemd-detect-virt --vm (CPUID and DMI), else the CPU's
    `hypervisor` flag (a VM of a vendor we cannot name: "unknown"). A container needs evidence
    from the running system (PID 1's cgroup, podman's /run/.containerenv); /.dockerenv alone is
    not enough, because VM images built with Docker carry that file into machines that are not
    containers (seen on a KVM VM, which systemd-detect-virt then calls "docker"): with it alone
    the answer is docker only on an overlay root, else "unknown"."""
    vm = _detect_virt("--vm")
    if vm in (None, "none") and " hypervisor" in (_read("/proc/cpuinfo") or ""):
        vm = "unknown"
    return vm or "unknown", _container()


def _container():
    if Path("/run/.containerenv").exists():
        return "podman"
    cgroup = _read("/proc/1/cgroup") or ""
    for marker in CONTAINER_CGROUP_MARKERS:
        if marker in cgroup:
            return marker
    if Path("/.dockerenv").exists():
        # Docker's root is an overlay; a VM's root on a block device only inherited the file.
        return "docker" if _root_fs_type() == "overlay" else "unknown"
    return "none"


def _root_fs_type():
    for line in (_read("/proc/self/mountinfo") or "").splitlines():
        left, _, right = line.partition(" - ")
        if left.split()[4:5] == ["/"] and right:
            return right.split()[0]
    return None


def _detect_virt(flag):
    try:
        out = subprocess.run(["systemd-detect-virt", flag], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _git(root, *args):
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None
