"""--explain's section, for table.md and report.html: per counted case, each side's
system calls, wake-ups and CPU per call, the top calls, and the model's parts beside the measured
median (analyse/explained.py). Pure: records in, rows and a Section out."""
from ipclab.analyse.explained import median_of
from ipclab.common.units import format_ns
from ipclab.output.page import FILES, Line, Section, Table
from ipclab.plan import patterns
from ipclab.plan.matrix import describe_shape

HEADERS = ("#", "case", "median", "syscalls c / s", "wake-ups c / s", "CPU µs c / s",
           "model: syscalls + copies + wake-ups", "explains", "top calls c / s")
RIGHT = tuple(i in (0, 2, 3, 4, 5, 6, 7) for i in range(len(HEADERS)))
CAPTION = ("Per round trip (a stream: per message; short and burst: per connection; load: per "
           "request), each side, from a "
           "pair of N calls less a pair of one: system calls and their names counted by perf "
           "(a separate counted pair), wake-ups the voluntary context switches and CPU from the "
           "kernel's resource usage of the measured pair. The model prices them at this "
           "machine's floors (one system call, a byte copied, a same- or cross-core wake-up; "
           "run.json \"floors\"); what it leaves is the language's and framework's own work. "
           "Streams, bursts and loads are not modelled (their sides and connections work at once)")


def counted(records):
    return [r for r in records if r.get("explain_client_voluntary") is not None]


def rows(records):
    """Table rows (tuples of strings, HEADERS' order), in case order."""
    out = []
    for r in counted(records):
        shape = describe_shape(r) + patterns.label_suffix(r.get("pattern"))
        case = f"{r['mechanism']} {r['client']}→{r['server']} {shape} {r.get('placement', '')}"
        out.append((str(r["index"]), case.strip(), format_ns(median_of(r)),
                    _pair(r, "syscalls"), _pair(r, "voluntary"), _cpu(r), _parts(r),
                    _share(r), " / ".join(r.get(f"explain_{s}_top") or "-"
                                          for s in ("client", "server"))))
    return out


def _number(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def _pair(r, count):
    return " / ".join(_number(r.get(f"explain_{side}_{count}")) for side in ("client", "server"))


def _cpu(r):
    return " / ".join(_number(r.get(f"explain_{side}_cpu_us"), 2) for side in ("client", "server"))


def _parts(r):
    if r.get("explain_model_ns") is None:
        return "-"
    return " + ".join(format_ns(r.get(f"explain_model_{p}_ns")) if r.get(
        f"explain_model_{p}_ns") is not None else "?" for p in ("syscalls", "copies", "wakeups"))


def _share(r):
    share = r.get("explain_model_share")
    return "-" if share is None else f"{share:.0%}"


def findings(records):
    """One line per counted case the model explains little of (under a third of its median) or
    more than all of (over 120%)."""
    out = []
    for r in counted(records):
        share = r.get("explain_model_share")
        if share is not None and share < 1 / 3:
            out.append(f"case {r['index']}: the model explains {share:.0%} of its median: the "
                       f"rest is work it does not price, inside the system calls (the kernel's "
                       f"protocol or queue code) or in the peers (their language and framework); "
                       f"the CPU column says which side spent it")
        elif share is not None and share > 1.2:
            out.append(f"case {r['index']}: the model prices {share:.0%} of its median: its "
                       f"wake-ups were cheaper than the floor's, measured once before the first "
                       f"case (wake-ups across CPUs vary on a VM: see the preflight note)")
    return out


def sections(report):
    """--explain's table and findings, for the files (too wide for a terminal); none when no
    case was counted."""
    table = rows(report.records)
    if not table:
        return []
    return [Section("explained", "explained: what each call costs", lead=(CAPTION + ".",),
                    tables=(Table(HEADERS, tuple(table), RIGHT, notes=tuple(
                        Line(t) for t in findings(report.records))),), media=FILES)]
