"""What a scenario's `[report]` may ask for, by name: the table shapes, a pivot's axes, the
statistics a cell may show and how a ratio is written. The renderers in output/ give each name
its meaning (output/study.py SHAPES, output/pivot.py CELLS); a test checks the two agree."""

# "cases": one row per case; "pivot": rows × columns of one statistic; the others are the shape
# of a published study.
TABLE_NAMES = ("cases", "pivot", "stream-cpu", "server-models")
# The axes a pivot may use: the case's parameters, and "pair" (client→server) as one.
# "variant": the mechanism with its pattern (other than rr) and its settings other than the
# defaults, "tcp short" or "rest json body", so one table can hold a mechanism run several ways.
PIVOT_AXES = ("mechanism", "client", "server", "pair", "pattern", "request_size", "response_size",
              "message_size", "payload", "sequence_length", "placement", "variant")
PIVOT_CELLS = ("median", "mean", "mean±sd", "min", "p90", "p99", "p99_9", "max", "msgs_per_s",
               "mib_per_s", "conns_per_s", "cpu_us_per_msg", "wire_bytes", "wire_req_bytes",
               "wire_resp_bytes")
RATIO_FORMATS = ("times", "percent")
# The studies' own figures a `[report] figures` may add to the report's usual set
# (output/report/study_figures.py): bars of mean ± sd per mechanism for each size, every
# mechanism on one chart of time against size, grouped bars of bytes and time per sequence length,
# a histogram of one case per mechanism with a note on its shape.
STUDY_FIGURES = ("bars-by-size", "mechanisms-by-size", "bars-by-sequence-length", "histogram")
