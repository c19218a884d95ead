"""Bytes on the wire per call (wire.py's figures), for table.md and the terminal: one row per
counted case, grouped by what travels and leanest first, then which mechanism was leanest and
heaviest how often. Pure: records in, rows and text out."""
from ipclab.plan import patterns
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import describe_shape

HEADERS = ("#", "shape", "mechanism", "client→server", "request B", "response B", "total B",
           "packets", "payload B")
# The middleware study (../shared/seeds/003_*, Gierlach 2021, Python → Java, L3 bytes per call):
# what it concluded about encodings, to set beside this run's ranking.
STUDY = {"mechanisms": {"grpc", "thrift-binary", "thrift-compact", "ice"},
         "leanest": "ice", "heaviest": "thrift-binary",
         "text": "the middleware study (seeds/003) found Ice's encoding the leanest and Thrift "
                 "binary the heaviest in every comparison, Thrift compact leanest for small "
                 "records with sequences of 5, gRPC close to Thrift compact"}


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
    at least two mechanisms), for structured records also per sequence length (the study's
    figures are per sequence length), then the study's finding when the run has its frameworks."""
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
    if lengths and STUDY["mechanisms"] <= {r["mechanism"] for r in counted(records)}:
        lines.append(_versus_study(compared))
    return lines


def _versus_study(compared):
    """The study's finding beside this run's: how often its leanest and heaviest were so here."""
    lean = sum(1 for g in compared if g[0]["mechanism"] == STUDY["leanest"])
    heavy = sum(1 for g in compared if g[-1]["mechanism"] == STUDY["heaviest"])
    return (f"{STUDY['text']}; here {STUDY['leanest']} was leanest in {lean} of {len(compared)} "
            f"and {STUDY['heaviest']} heaviest in {heavy} of {len(compared)}.")


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


def to_markdown(records):
    """A `## bytes on the wire per call` section, or "" when nothing was counted."""
    return markdown_of(rows(records), ranking(records))


def markdown_of(table, ranked):
    """The section of `rows` and `ranking` (output/model.py keeps them once per run)."""
    if not table:
        return ""
    lines = ["## bytes on the wire per call", "", CAPTION + ".", "",
             "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---:" if i in (0, 4, 5, 6, 7) else "---" for i in range(len(HEADERS)))
             + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    lines += [""] + [f"- {line}" for line in ranked]
    return "\n".join(lines) + "\n"


def terminal(records):
    """The same for the terminal: a rich Table and the ranking lines, or [] when none."""
    return terminal_of(rows(records), ranking(records))


def terminal_of(table_rows, ranked):
    from rich import box
    from rich.table import Table
    from rich.text import Text
    if not table_rows:
        return []
    table = Table(title="bytes on the wire per call", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption=CAPTION, caption_justify="left")
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="right" if i in (0, 4, 5, 6, 7) else "left")
    for row in table_rows:
        table.add_row(*row)
    return [table, *(Text(line) for line in ranked)]
