import pytest

from ipclab.common.errors import UserError
from ipclab.plan.scenario import build_scenario, load_scenario


def build(raw, catalog, **overrides):
    return build_scenario(raw, "s.toml", catalog, overrides, "s")


def test_defaults_cover_every_mechanism_and_language(catalog):
    s = build({}, catalog)
    assert s.matrix["mechanism"] == list(catalog.mechanisms)
    assert s.matrix["placement"] == ["cross-core"]
    assert s.run.iterations == 1000 and s.statistics.outliers == "tukey"


def test_file_values_sizes_with_units_and_flag_overrides(catalog):
    raw = {"matrix": {"mechanism": ["tcp"], "request_size": [16, "1KiB"]}, "run": {"warmup": 5}}
    s = build(raw, catalog, mechanism="uds,pipe", iterations="50", response_size="128MiB")
    assert s.matrix["mechanism"] == ["uds", "pipe"]
    assert s.matrix["request_size"] == [16, 1024]
    assert s.matrix["response_size"] == [134217728]
    assert (s.run.iterations, s.run.warmup) == (50, 5)


def test_a_librarys_name_stands_for_its_mechanisms(catalog):
    # "redis" is no mechanism: it is redis-tcp and redis-uds; "iceoryx2" is one, itself alone.
    s = build({}, catalog, mechanism="redis,iceoryx2,zmq,tcp")
    assert s.matrix["mechanism"] == ["redis-tcp", "redis-uds", "iceoryx2", "zmq-tcp", "zmq-ipc",
                                     "tcp"]
    with pytest.raises(UserError, match="unknown mechanism 'red'"):
        build({}, catalog, mechanism="red")


def test_a_precision_target_and_a_budget_in_their_units(catalog):
    s = build({"run": {"precision": "5%", "budget": "10m"}}, catalog)
    assert (s.run.precision, s.run.budget) == (0.05, 600.0)
    s = build({"run": {"precision": 0.03}}, catalog, budget="90s")
    assert (s.run.precision, s.run.budget) == (0.03, 90.0)
    assert build({}, catalog).run.precision is None


def test_rounds_asked_on_the_command_line_without_a_target_turn_the_files_target_off(catalog):
    target = {"run": {"precision": "10%", "budget": "3m"}}
    assert build(target, catalog, rounds="1").run.precision is None  # one round is one round
    assert build(target, catalog, rounds="5", precision="3%").run.precision == 0.03
    assert build(target, catalog, precision="off").run.precision is None
    assert build(target, catalog).run.precision == 0.10


@pytest.mark.parametrize("raw,overrides,expected", [
    ({"matrix": {"mechanism": ["tpc"]}}, {}, "s.toml: matrix.mechanism: unknown mechanism 'tpc'"),
    ({}, {"mechanism": "tcp,carrier-pigeon"}, "--mechanism: unknown mechanism 'carrier-pigeon'"),
    ({}, {"request_size": "12XB"}, "--request-size: '12XB' is not a size"),
    ({"matrix": {"response_size": ["256MiB"]}}, {}, "over the peer contract's maximum"),
    ({"run": {"iteratons": 5}}, {}, "unknown key 'run.iteratons'"),
    ({"colour": "red"}, {}, "unknown key 'colour'"),
    ({"run": {"iterations": 0}}, {}, "run.iterations: 0 is not a valid iterations"),
    ({}, {"iterations": "many"}, "--iterations: 'many' is not a valid iterations"),
    ({"statistics": {"outliers": "mad"}}, {}, "statistics.outliers: unknown value 'mad'"),
    ({"statistics": {"baseline": {"mechanism": "x"}}}, {}, "statistics.baseline.mechanism"),
    ({"statistics": {"baseline": {"size": 1}}}, {}, "unknown key 'size'"),
    ({"matrix": {"client": []}}, {}, "must be a non-empty list"),
    ({"matrix": "tcp"}, {}, "matrix must be a table"),
    ({}, {"placement": "next-door"}, "--placement: unknown placement 'next-door'"),
    ({}, {"precision": "0"}, "--precision: '0' is not a precision above 0% and below 100%"),
    ({}, {"precision": "150%"}, "--precision: '150%' is not a precision above 0%"),
    ({"run": {"precision": "tight"}}, {}, "run.precision: 'tight' is not a precision"),
    ({}, {"budget": "-1"}, "--budget: '-1' is not a time budget above 0 (e.g. 250ms, 90s, 10m, 1h)"),
    ({"run": {"budget": "soon"}}, {}, "run.budget: 'soon' is not a time budget"),
    ({"statistics": {"percentiles": [50, 100]}}, {}, "statistics.percentiles: 100 is not a "
                                                     "percentile"),
    ({"statistics": {"percentiles": {"p": 99}}}, {}, "statistics.percentiles: {'p': 99} is not a "
                                                     "list of percentiles"),
    ({"statistics": {"percentiles": [True]}}, {}, "statistics.percentiles: True is not a"),
    ({}, {"percentiles": ""}, "--percentiles: '' is not a percentile"),
    ({"matrix": {"exclude": {"mechanism": "tcp"}}}, {}, "matrix.exclude: {'mechanism': 'tcp'} "
                                                        "must be a list of tables"),
    ({"matrix": {"exclude": [{}]}}, {}, "matrix.exclude: [{}] must be a list of tables"),
    ({"matrix": {"exclude": [{"colour": "red"}]}}, {}, "matrix.exclude[1]: unknown axis 'colour'"),
    ({"matrix": {"exclude": [{"mechanism": "tpc"}]}}, {},
     "matrix.exclude[1].mechanism: unknown mechanism 'tpc'"),
    ({"matrix": {"request_size": [16], "exclude": [{"mechanism": "tcp"}, {"request_size": "1KiB"}]}},
     {}, "matrix.exclude[2].request_size: 1 KiB is not in the matrix's request_size (16 B)"),
])
def test_bad_input_names_where_and_what(catalog, raw, overrides, expected):
    with pytest.raises(UserError) as err:
        build(raw, catalog, **overrides)
    assert expected in str(err.value)


def test_percentiles_from_the_file_or_the_flag_sorted_once_each(catalog):
    assert build({}, catalog).statistics.percentiles == (50, 90, 99, 99.9)
    assert build({"statistics": {"percentiles": [99.99, 50, 99.99]}},
                 catalog).statistics.percentiles == (50, 99.99)
    assert build({"statistics": {"percentiles": [90]}}, catalog,
                 percentiles="50, 99.999").statistics.percentiles == (50, 99.999)


def test_missing_and_malformed_files(catalog, tmp_path):
    with pytest.raises(UserError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.toml", catalog)
    bad = tmp_path / "bad.toml"
    bad.write_text("matrix = [")
    with pytest.raises(UserError, match="bad.toml: not valid TOML"):
        load_scenario(bad, catalog)


def test_every_shipped_scenario_is_valid(catalog):
    for path in sorted((catalog.root / "scenarios").glob("*.toml")):
        scenario = load_scenario(path, catalog)
        assert scenario.name


def test_warmup_is_capped_by_bytes_for_large_payloads(catalog):
    from ipclab.plan.matrix import Case
    from ipclab.execute.runner import effective_warmup
    run = build({"run": {"warmup": 1000, "warmup_max_bytes": "1GiB"}}, catalog).run
    small = Case(1, "tcp", "cpp", "cpp", 16, 16, "cross-core", "rr")
    huge = Case(2, "tcp", "cpp", "cpp", 128 << 20, 128 << 20, "cross-core", "rr")
    assert effective_warmup(small, run) == 1000
    assert effective_warmup(huge, run) == 3
    assert effective_warmup(huge, build({"run": {"warmup": 0}}, catalog).run) == 0
    assert effective_warmup(huge, build({"run": {"warmup_max_bytes": 1}}, catalog).run) == 1


def test_payload_and_sequence_length_are_validated(catalog):
    with pytest.raises(UserError, match=r"s.toml: matrix.payload: unknown payload 'huge'"):
        build_scenario({"matrix": {"payload": ["huge"]}}, "s.toml", catalog, {}, "s")
    with pytest.raises(UserError, match=r"--sequence-length: '-3' is not a sequence length"):
        build_scenario({}, "s.toml", catalog, {"sequence_length": "5,-3"}, "s")
    s = build_scenario({}, "s.toml", catalog, {"payload": "small,large", "sequence_length": "5,300"}, "s")
    assert s.matrix["payload"] == ["small", "large"] and s.matrix["sequence_length"] == [5, 300]


QUICK_SIZES = {"matrix": {"request_size": [16], "response_size": [16, "1KiB"]}}


def test_a_burst_over_a_round_trip_scenario_takes_the_contracts_sizes(catalog):
    s = build(QUICK_SIZES, catalog, pattern="burst", mechanism="tcp")
    assert (s.matrix["request_size"], s.matrix["response_size"]) == ([1000], [8])


@pytest.mark.parametrize("raw,overrides", [
    (QUICK_SIZES, {"pattern": "burst", "request_size": "64"}),         # asked on the command line
    (QUICK_SIZES, {"pattern": "rr,burst"}),                            # round trips run too
    ({"matrix": {**QUICK_SIZES["matrix"], "pattern": ["burst"]}}, {}),  # the file's own bursts
])
def test_burst_sizes_that_someone_chose_are_kept(catalog, raw, overrides):
    s = build(raw, catalog, mechanism="tcp", **overrides)
    assert s.matrix["request_size"] != [1000]
