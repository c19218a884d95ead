"""What a scenario may say, and the checks of every value it gives (plan/scenario.py builds the
Scenario): each error names where the value came from (the file and key, or the flag) and the
value, in one line."""
from ipclab.common.errors import UserError
from ipclab.common.units import MAX_PAYLOAD, format_size, parse_size
from ipclab.plan import link, patterns, report_spec
from ipclab.plan import settings as setting_table

PLACEMENTS = ("same-core", "cross-core", "unpinned")
DEFAULT_PLACEMENT = "cross-core"
# PROTOCOL.md section 11: request–response, a one-way stream, a connection per round trip.
PATTERNS = patterns.NAMES  # as imported; the check below reads the table itself
OUTLIER_RULES = ("tukey", "none")  # analyse/stats.py remove_outliers
# "bytes": the sized payloads of PROTOCOL.md section 3; the others are the structured records of
# section 10.2, which only RPC mechanisms carry.
PAYLOADS = ("bytes", "small", "medium", "large")
MAX_SEQUENCE_LENGTH = 1000000
MATRIX_AXES = ("mechanism", "client", "server", "request_size", "response_size", "payload",
               "sequence_length", "placement", "pattern", "message_size", "server_model",
               *setting_table.NAMES)
VOID = "void"  # `--response-size void`: the void operations, i.e. reply = "void" (plan/settings.py)
BASELINE_KEYS = ("mechanism", "client", "server", "placement", "pattern", "variant")



class Validator:
    def __init__(self, source, catalog):
        self.source, self.catalog = source, catalog

    def fail_at(self, where, message):
        self._fail(where, message)

    def _fail(self, where, message):
        prefix = where if where.startswith("--") else f"{self.source}: {where}"
        raise UserError(f"{prefix}: {message}")

    def axis(self, axis, value, where):
        if value is None:
            return self._default_axis(axis)
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            self._fail(where, f"{value!r} must be a non-empty list")
        if axis.endswith("_size"):
            sizes = [self._size(item, where) for item in items]
            if axis == "message_size" and 0 in sizes:
                self._fail(where, "a stream message is at least 1 byte (PROTOCOL.md 11.1)")
            return sizes
        if axis == "sequence_length":
            return list(dict.fromkeys(self._count(item, where) for item in items))
        if axis in setting_table.SETTINGS and setting_table.SETTINGS[axis].values is None:
            setting = setting_table.SETTINGS[axis]
            if setting.word and setting.word in [str(i).strip() for i in items]:
                if len(items) > 1:
                    self._fail(where, f"{setting.word} stands alone, not in a list of values "
                                      f"({value!r})")
                return [setting.word]
            return list(dict.fromkeys(self._whole(item, where, axis, setting.most)
                                      for item in items))
        allowed = self._allowed(axis)
        if axis == "mechanism":
            items = [m for item in items for m in _family(item, allowed)]
        for item in items:
            if not isinstance(item, str) or item.strip() not in allowed:
                self._fail(where, f"unknown {axis} {item!r} (known: {', '.join(allowed)})")
        return list(dict.fromkeys(item.strip() for item in items))

    def exclusions(self, value, matrix, flagged=()):
        """[matrix] exclude: a list of tables, each naming matrix axes and their values, e.g.
        { mechanism = ["corba", "rest"], request_size = "128MiB" }. A case whose value is among
        the listed ones on every axis of a table is left out (plan/matrix.py). Each value must
        be one the matrix has, so a misspelt one is an error, not an exclusion of nothing;
        `flagged`: the axes the command line set, whose values the file could not know."""
        where = "matrix.exclude"
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(t, dict) and t for t in value):
            self._fail(where, f"{value!r} must be a list of tables like "
                              f"{{ mechanism = \"rest\", request_size = \"128MiB\" }}")
        return [self._exclusion(table, matrix, flagged, f"{where}[{k}]")
                for k, table in enumerate(value, start=1)]

    def design(self, value, matrix, flagged=()):
        """[matrix] design: { study = { axis = value, … }, usual = { … } }: the study's condition
        on some axes, and ipclab's usual way on the same axes (optional). Each value one the
        matrix has (plan/matrix.py leaves out the cases that change two or more of them)."""
        where = "matrix.design"
        if value is None:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("study"), dict) \
                or not value["study"] or set(value) - {"study", "usual"}:
            self._fail(where, f"{value!r} must be a table {{ study = {{ placement = \"same-core\", "
                              f"… }}, usual = {{ … }} }} (usual optional)")
        out = {}
        for part in ("study", "usual"):
            table = value.get(part)
            if table is None:
                continue
            if not isinstance(table, dict) or any(isinstance(x, list) for x in table.values()):
                self._fail(f"{where}.{part}", f"{table!r} must be a table of one value per axis")
            # An axis the command line sets is the user's choice, no longer the design's.
            out[part] = {axis: values[0] for axis, values in self._exclusion(
                table, matrix, flagged, f"{where}.{part}").items() if axis not in flagged}
        if "usual" in out and set(out["usual"]) != set(out["study"]):
            self._fail(f"{where}.usual", f"names {', '.join(sorted(out['usual']))}, not the "
                                         f"study's axes ({', '.join(sorted(out['study']))})")
        return out

    def _exclusion(self, table, matrix, flagged, where):
        out = {}
        for axis, item in table.items():
            if axis not in MATRIX_AXES:
                self._fail(where, f"unknown axis {axis!r} (known: {', '.join(MATRIX_AXES)})")
            values = self.axis(axis, item if isinstance(item, list) else [item],
                               f"{where}.{axis}")
            missing = [x for x in values if x not in matrix[axis]]
            if missing and axis not in flagged:
                shown = format_size if axis.endswith("_size") else repr
                self._fail(f"{where}.{axis}", f"{shown(missing[0])} is not in the matrix's {axis} "
                                              f"({', '.join(map(shown, matrix[axis]))})")
            out[axis] = values
        return out

    def _whole(self, item, where, axis, most=10**9):
        text = item.strip() if isinstance(item, str) else item
        if isinstance(text, str) and text.isdigit():
            text = int(text)
        if not isinstance(text, int) or isinstance(text, bool) or not 1 <= text <= most:
            self._fail(where, f"{item!r} is not a valid {axis} (a whole number, 1 to {most:,})")
        return text

    def _allowed(self, axis):
        if axis in setting_table.SETTINGS:
            return list(setting_table.SETTINGS[axis].values)
        if axis == "mechanism":
            return list(self.catalog.mechanisms)
        if axis in ("client", "server"):
            return list(self.catalog.languages)
        if axis == "payload":
            return list(PAYLOADS)
        if axis == "server_model":
            # The contract's burst models, then the RPC frameworks' own load server
            # configurations (11.5.4) as the built peers name them.
            return list(dict.fromkeys([*patterns.SERVER_MODELS, *(
                m for lang in self.catalog.languages.values()
                for models in lang.load_models.values() for m in models)]))
        return list(PLACEMENTS if axis == "placement" else patterns.PATTERNS)

    def _default_axis(self, axis):
        defaults = {"request_size": [16], "response_size": [16], "placement": [DEFAULT_PLACEMENT],
                    "pattern": [patterns.DEFAULT.name], "payload": ["bytes"], "sequence_length": [5],
                    "message_size": [1024]}
        if axis in setting_table.SETTINGS:
            return [setting_table.SETTINGS[axis].default]
        return defaults.get(axis, self._allowed(axis))

    def _size(self, item, where):
        try:
            size = parse_size(item.strip() if isinstance(item, str) else item, where)
        except UserError as e:
            self._fail(where, str(e).split(": ", 1)[1])
        if size > MAX_PAYLOAD:
            self._fail(where, f"{item!r} is over the peer contract's maximum of 128MiB")
        return size

    def _count(self, item, where):
        text = item.strip() if isinstance(item, str) else item
        if isinstance(text, str) and text.isdigit():
            text = int(text)
        if not isinstance(text, int) or isinstance(text, bool) or not 0 <= text <= MAX_SEQUENCE_LENGTH:
            self._fail(where, f"{item!r} is not a sequence length (a whole number, 0 to "
                              f"{MAX_SEQUENCE_LENGTH})")
        return text

    def number(self, key, value, where, default):
        if value is None:
            return default
        given = value
        if key.endswith("_bytes") and isinstance(value, str):
            value = parse_size(value, where)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(value, str):
            try:
                value = type(default)(value)
                ok = True
            except ValueError:
                ok = False
        minimum = 1 if key in ("iterations", "rounds", "messages", "windows", "connections",
                               "connectors", "processes", "backlog", "sweep_from") else 0
        if not ok or value < minimum or (key.endswith("timeout") and value <= 0) \
                or (key == "tukey_k" and value <= 0) or (key == "seed" and value >= 2**64):
            self._fail(where, f"{given!r} is not a valid {key}")
        if isinstance(default, int) and value != int(value):
            self._fail(where, f"{given!r} is not a whole number")
        return type(default)(value)

    def percentiles(self, value, where, default):
        """Percentiles to show: "50,99.99" or [50, 99.99], each above 0 and below 100, sorted
        and once each; `default` when not given."""
        if value is None:
            return default
        items = [i.strip() for i in value.split(",")] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            self._fail(where, f"{value!r} is not a list of percentiles, e.g. 50,99,99.9")
        out = set()
        for item in items:
            number = None if isinstance(item, bool) else _float_or_none(item)
            if number is None or not 0 < number < 100:
                self._fail(where, f"{item!r} is not a percentile: give numbers above 0 and "
                                  f"below 100, e.g. 50,99,99.9,99.99")
            out.add(number)
        return tuple(sorted(out))

    def percentage(self, value, where):
        """A precision target: "5%" or 0.05, above 0 and below 100%; None when not given or
        "off" (a scenario's target turned off from the command line)."""
        text = None if value is None else str(value).strip()
        if text is None or text.lower() == "off":
            return None
        try:
            fraction = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            fraction = None
        if fraction is None or not 0 < fraction < 1:
            self._fail(where, f"{value!r} is not a precision above 0% and below 100% (e.g. 5%) "
                              f"or off")
        return fraction

    def duration(self, value, where, what="time budget", zero=False):
        """A time: "250ms", "90s", "10m", "1h" or seconds, above 0 (or 0 when `zero`), at most a
        day; None when not given."""
        if value is None:
            return None
        text = str(value).strip()
        unit = next((u for u in ("ms", "s", "m", "h") if text.endswith(u)), "")
        scale = {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, "": 1}[unit]
        try:
            seconds = float(text[:len(text) - len(unit)]) * scale
        except ValueError:
            seconds = None
        if seconds is None or not (seconds >= 0 if zero else seconds > 0) or seconds > 86400:
            self._fail(where, f"{value!r} is not a {what} {'of 0 or more' if zero else 'above 0'}"
                              f" (e.g. 250ms, 90s, 10m, 1h)")
        return seconds

    def link(self, value, where):
        try:
            return link.parse(value, where).text
        except UserError as e:
            self._fail(where, str(e).split(": ", 1)[1])

    def flag(self, value, where, default):
        if value is None:
            return default
        if not isinstance(value, bool):
            self._fail(where, f"{value!r} must be true or false")
        return value

    def names(self, value, where, allowed):
        """A list of names from `allowed` (none given: [])."""
        if value is None:
            return []
        if not isinstance(value, list) or any(item not in allowed for item in value):
            self._fail(where, f"{value!r} must be a list of: {', '.join(allowed)}")
        return list(dict.fromkeys(value))

    def choice(self, value, where, allowed, default):
        if value is None:
            return default
        if value not in allowed:
            self._fail(where, f"unknown value {value!r} (known: {', '.join(allowed)})")
        return value

    def pivot(self, raw):
        """[report] rows, columns, cell, ratio_to, ratio_as: only with table = "pivot", which
        needs rows and columns (distinct axes of plan/report_spec.py)."""
        keys = ("rows", "columns", "cell", "ratio_to", "ratio_as")
        given = [k for k in keys if k in raw]
        if raw.get("table") != "pivot":
            if given:
                self._fail(f"report.{given[0]}", f"{raw[given[0]]!r} applies only with "
                                                 f"table = \"pivot\"")
            return {}
        for key in ("rows", "columns"):
            if key not in raw:
                self._fail(f"report.{key}", "missing: table = \"pivot\" needs rows and columns")
        rows = raw["rows"] if isinstance(raw["rows"], list) else [raw["rows"]]
        if not rows or not all(isinstance(a, str) and a in report_spec.PIVOT_AXES for a in rows) \
                or len(set(rows)) != len(rows):
            self._fail("report.rows", f"{raw['rows']!r} must be distinct axes among "
                                      f"{', '.join(report_spec.PIVOT_AXES)}")
        columns = self.choice(raw["columns"], "report.columns", report_spec.PIVOT_AXES, None)
        if columns in rows:
            self._fail("report.columns", f"{columns!r} is also in report.rows")
        settings = {"rows": rows, "columns": columns,
                    "cell": self._cells(raw.get("cell")),
                    "ratio_as": self.choice(raw.get("ratio_as"), "report.ratio_as",
                                            report_spec.RATIO_FORMATS, "times"),
                    "ratio_to": None}
        if "ratio_to" in raw:
            settings["ratio_to"] = self._ratio_to(raw["ratio_to"], rows, columns)
        return settings

    def _cells(self, value):
        """One statistic of plan/report_spec.py PIVOT_CELLS, or a non-empty list of them."""
        if isinstance(value, list):
            if not value:
                self._fail("report.cell", "[] must name at least one statistic")
            return [self.choice(v, "report.cell", report_spec.PIVOT_CELLS, None) for v in value]
        return self.choice(value, "report.cell", report_spec.PIVOT_CELLS, "median")

    def _ratio_to(self, value, rows, columns):
        """{axis: value}: a plain value is one of the columns; { axis = value } names a row
        axis (or the column axis) itself."""
        if not isinstance(value, dict):
            return {columns: self._axis_value(columns, value)}
        if len(value) != 1 or next(iter(value)) not in (*rows, columns):
            self._fail("report.ratio_to", f"{value!r} must be one value of the columns "
                                          f"({columns}) or {{ axis = value }} with an axis of "
                                          f"rows or columns")
        axis, item = next(iter(value.items()))
        return {axis: self._axis_value(axis, item)}

    def selector_value(self, axis, value, where):
        """One value of an axis a claim selects cases by (plan/claims.py): a matrix axis,
        "variant" or "pair"."""
        if axis not in (*MATRIX_AXES, "variant", "pair"):
            known = ", ".join((*MATRIX_AXES, "variant", "pair"))
            self._fail(where, f"unknown axis (known: {known})")
        return self._axis_value(axis, value, where)

    def _axis_value(self, axis, value, where="report.ratio_to"):
        """One value of a pivot axis, checked as the matrix checks that axis."""
        if axis == "pair":
            parts = str(value).replace("->", "→").split("→")
            if len(parts) != 2:
                self._fail(where, f"{value!r} is not a pair like \"java→cpp\"")
            return "→".join(self.axis("client", [p], where)[0] for p in parts)
        if isinstance(value, list):
            self._fail(where, f"{value!r} must be one value of {axis}")
        if axis == "variant":  # a mechanism, then its pattern and settings: "tcp short"
            self.axis("mechanism", [str(value).split(" ")[0]], where)
            return str(value)
        return self.axis(axis, [value], where)[0]

    def baseline(self, value):
        where = "statistics.baseline"
        if not isinstance(value, dict):
            self._fail(where, f"{value!r} must be a table like {{ mechanism = \"tcp\" }}")
        for key, item in value.items():
            if key not in BASELINE_KEYS:
                self._fail(where, f"unknown key {key!r} (known: {', '.join(BASELINE_KEYS)})")
            if key != "variant":   # "jni JNI copies": the mechanism as a case ran it (matrix.variant)
                self.axis(key, [item], f"{where}.{key}")
            elif not isinstance(item, str):
                self._fail(f"{where}.{key}", f"{item!r} must be a variant's name, like \"jni\"")
        return dict(value)


def _float_or_none(value):
    """A number given as a number or as text ("99.9"), else None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number else None  # NaN is no number


def _family(item, mechanisms):
    """A library's name for all its mechanisms ("redis": redis-tcp, redis-uds; "zmq", "nng"),
    where the name is no mechanism itself: [item] otherwise (an unknown one fails as such)."""
    if not isinstance(item, str) or item.strip() in mechanisms:
        return [item]
    family = [m for m in mechanisms if m.startswith(f"{item.strip()}-")]
    return family or [item]
