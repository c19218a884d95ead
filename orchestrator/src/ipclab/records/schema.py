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
