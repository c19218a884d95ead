"""Bytes on the wire per call (execute/wire.py's figures), for every reader: one row per counted
case, grouped by what travels and leanest first, then which mechanism was leanest and heaviest
how often. Pure: records in, rows and a Section out."""
from ipclab.output.page import Line, Section, Table
from ipclab.plan import patterns
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import describe_shape

HEADERS = ("#", "shape", "mechanism", "client→server", "request B", "response B", "total B",
           "packets", "payload B")
RIGHT = tuple(i in (0, 4, 5, 6, 7) for i in range(len(HEADERS)))


def counted(records):
    return [r for r in records if r.get("wire_req_bytes") is not None]


def _group(r):
    """What travels: cases in one group differ only in mechanism."""
    return (patterns.of_record(r).name, r.get("payload") or "bytes", r.get("sequence_length") or 0,
            r.get("request_size") or 0, r.get("response_size") or 0, r.get("message_size") or 0,
            r["client"], r["server"], r["placement"],
            tuple(sorted((r.get("settings") or {}).items())))


def _total(r):
    return r["wire_req_bytes"] + r["wire_resp_bytes"]


def _bytes(value):
    return f"{value:.0f}" if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def rows(records):
    """Table rows (tuples of strings, HEADERS' order): each group together, leanest first."""
    ordered = sorted(counted(records), key=lambda r: (_group(r), _total(r)))
    out = []
    for r in ordered:
        payload = (f"{r['app_req_bytes']} + {r['app_resp_bytes']}"
                   if r.get("app_req_bytes") is not None else "-")
        shape = describe_shape(r) + patterns.label_suffix(r.get("pattern"))
        mechanism = " ".join(filter(None, (r["mechanism"],
                                           setting_table.label_words(r.get("settings")))))
        out.append((str(r["index"]), shape, mechanism, f"{r['client']}→{r['server']}",
                    _bytes(r["wire_req_bytes"]), _bytes(r["wire_resp_bytes"]), _bytes(_total(r)),
                    f"{r['wire_packets_per_call']:.3g}", payload))
    return out


def ranking(records):
    """Lines saying which mechanism was leanest and heaviest in how many groups (of groups with
    at least two mechanisms), for structured records also per sequence length (the middleware
    study's figures are per sequence length; its conclusions are claims of its scenario,
    judged in the claims section)."""
    groups = {}
    for r in counted(records):
        groups.setdefault(_group(r), []).append(r)
    compared = [sorted(g, key=_total) for g in groups.values() if len(g) > 1]
    if not compared:
        return []
    lines = [_ranked("", compared)]
    lengths = sorted({g[0].get("sequence_length") for g in compared
                      if g[0].get("payload", "bytes") != "bytes"})
    lines += [_ranked(f"sequences of {n}: ", [g for g in compared
                                              if g[0].get("sequence_length") == n
                                              and g[0].get("payload", "bytes") != "bytes"])
              for n in lengths] if len(lengths) > 1 else []
    return lines


def _ranked(prefix, compared):
    return (f"{prefix}leanest {_tally([g[0]['mechanism'] for g in compared], len(compared))}; "
            f"heaviest {_tally([g[-1]['mechanism'] for g in compared], len(compared))}")


def _tally(names, groups):
    counts = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} in {n} of {groups}" for name, n in
                     sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


CAPTION = ("L3 bytes (IP header and all) per call (a stream: per message) in each direction, "
           "counted by the kernel (nftables) and averaged over the measured calls, set-up and "
           "warm-up excluded (docs/wire.md); payload: the application's bytes")


def sections(report):
    """`--wire-bytes`: the table, leanest first, and the ranking; none when nothing was counted."""
    table = rows(report.records)
    if not table:
        return []
    return [Section("wire", "bytes on the wire per call", lead=(CAPTION + ".",), tables=(Table(
        HEADERS, tuple(table), RIGHT, notes=tuple(Line(t) for t in ranking(report.records)),
        wrap=True),))]
