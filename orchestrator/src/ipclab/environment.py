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
from ipclab.catalog import java_home, tool_version


def collect(root):
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
        "virtualization": _virtualization(),
        "cpu_governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "compiler": tool_version(["c++", "--version"]),
        "jdk": tool_version([str(Path(java_home()) / "bin" / "java"), "-version"]) if java_home() else None,
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


def _virtualization():
    try:
        out = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True, timeout=5)
        if out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "hypervisor" if " hypervisor" in (_read("/proc/cpuinfo") or "") else "none detected"


def _git(root, *args):
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None
