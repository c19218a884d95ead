"""run.json's schema: its name, the older ones `ipclab report` still reads, and its history."""

# run.json schema history:
#   ipclab.run/1 (0.1.0): first version.
#   ipclab.run/2 (0.2.0): rounds. A record holds `rounds` (one entry per finished round: order,
#     samples and warm-up samples files, median and its interval, drift, noise), `round_medians`,
#     `round_spread`, `median_ci_low`/`_high` (hierarchical bootstrap), `stable`, and
#     `ratio_ci_low`/`_high` with `verdict`; `samples_file` is gone (per round now); `warnings`
#     are {kind, text}. The document gains `rounds` (each round's case order), `preflight` and
#     `statistics_parameters`. `ipclab report` reads /1 and rewrites it as /2.
#   ipclab.run/3 (0.3.0): patterns stream and short (PROTOCOL.md 11). A case has
#     `message_size` (stream; its request and response sizes are null); a record has the
#     throughput fields of analyse/throughput.py (msgs_per_s … time_wait, null where they do not
#     apply); a stream round's entry keeps `stream` (the client result's messages, windows,
#     stream_ns, lost, client_cpu, server_cpu), a short round's `time_wait`. A stream's time
#     statistics are per message of each window. The scenario gains `report` (table, versus) and
#     run.messages, run.windows. `ipclab report` reads /1 and /2 and rewrites them as /3.
#     Added within /3 (optional fields, older readers ignore them): run.link and run.wire_bytes,
#     the scenario's `hosts` and environment.hosts (the server's host); with wire bytes a round's
#     entry keeps `wire` (wire.per_call: per-call bytes and packets each way, conn_bytes, the
#     counters of the measured and calibration pairs) and a record the columns of records/fields.py's WIRE_FIELDS.
#     `round_variance_prior`: pattern -> {cases, prior_df, prior_sd} of the between-round
#     variance pooled over the run's cases (analyse/pooled.py), for the patterns whose median
#     intervals were moderated by it; a record's `rounds_ci` is the interval its own rounds give
#     (the bootstrap), which its median's interval is when no prior replaces it.
SCHEMA = "ipclab.run/3"
OLD_SCHEMAS = ("ipclab.run/1", "ipclab.run/2")

# The fields of run.json's document, a case's record and a round's entry, as (name, JSON type,
# meaning): what output/schema.py publishes (docs/schema/run.schema.json) and tests hold against
# what execute/rundir.py writes (test_schema.py). A measurement's own fields are named where
# they are computed (records/fields.py, analyse/*.py), not here.
DOCUMENT_FIELDS = (
    ("schema", "string", "this format's name and version"),
    ("complete", "boolean", "every round of every case ran"),
    ("interrupted", "boolean", "the run was stopped (Ctrl-C, SIGTERM)"),
    ("scenario", "object", "the scenario as run: matrix, run, statistics, report, hosts, claims"),
    ("environment", "object", "the machine: CPU, kernel, clocksource, hypervisor, container, "
                              "each language's toolchain, git revision, start and end"),
    ("notes", "array", "notes on the whole run"),
    ("preflight", "any", "the C floor's ping-pong per placement before the first case"),
    ("floors", "any", "--explain's floors (execute/floors.py)"),
    ("cases", "array", "every case of the matrix, with its skip status and reason"),
    ("rounds", "array", "each round: its index, case order, start and end"),
    ("results", "array", "every case's record"),
    ("statistics_method", "string", "the statement of every statistical method"),
    ("statistics_parameters", "object", "the methods' constants"),
    ("round_variance_prior", "object", "pattern -> the between-round variance pooled over its "
                                       "cases (analyse/pooled.py)"),
    ("claims", "array", "the scenario's claims judged (analyse/claims.py)"),
    ("why", "array", "what decides each claim that does not hold (analyse/why.py)"),
)
DOCUMENT_REQUIRED = ("schema", "complete", "interrupted", "scenario", "environment", "notes",
                     "preflight", "cases", "rounds", "results")
RECORD_FIELDS = (
    ("status", "string", "pending, ok, failed, not-applicable or unavailable"),
    ("reason", "string", "why it failed or did not run"),
    ("client_cpus", "array", "the CPUs the client was pinned to"),
    ("server_cpus", "array", "the CPUs the server was pinned to"),
    ("seconds", "number", "its rounds' time in all (s)"),
    ("notes", "array", "its rounds' notes"),
    ("warmup", "integer", "the client's warm-up units"),
    ("client_runtime", "string", "the client's runtime as it reported it"),
    ("server_runtime", "string", "the server's runtime as it reported it"),
    ("client_library", "any", "the client's binding library (Java: jni, ffm)"),
    ("server_library", "any", "the server's binding library"),
    ("rounds_planned", "integer", "rounds planned (0: it cannot run)"),
    ("hlog_file", "string", "its HdrHistogram log, a round per interval (docs/outputs.md)"),
    ("broker", "string", "the broker's or Redis server's version"),
)
RECORD_REQUIRED = ("status", "reason", "rounds_planned")
ROUND_FIELDS = (
    ("round", "integer", "the round's index, from 1"),
    ("position", "integer", "its place in the round's shuffled order"),
    ("status", "string", "ok or failed"),
    ("reason", "string", "why it failed"),
    ("seconds", "number", "the round's time (s)"),
    ("samples", "integer", "samples its client wrote"),
    ("samples_file", "string", "its raw samples: little-endian int64 ns"),
    ("warmup_samples", "integer", "warm-up samples"),
    ("warmup_samples_file", "string", "its warm-up samples"),
    ("noise", "object", "the machine's load during it (execute/noise.py)"),
    ("notes", "array", "its notes"),
    ("median", "number", "its median (ns; a stream's per message)"),
    ("median_ci_low", "number", "its median's interval, low (ns)"),
    ("median_ci_high", "number", "its median's interval, high (ns)"),
    ("drift", "object", "a trend over its samples (analyse/stats.py)"),
)
ROUND_REQUIRED = ("round", "status", "seconds", "samples")
# The JSON types of analyse/case_stats.py's ANALYSIS_FIELDS that are not numbers.
ANALYSIS_KINDS = {"outliers_removed": "integer", "warnings": "array", "round_medians": "array",
                  "rounds_ci": "array", "stable": "boolean"}
