"""Settings as axes (plan/settings.py, PROTOCOL.md contracts 3 and 4): which cases they make, which are
not applicable and why, what reaches the peers, and that leaving them alone changes nothing."""
import pytest

from ipclab.common.errors import UserError
from ipclab.output import csv as export_csv
from ipclab.output.page import Page
from ipclab.plan import matrix
from ipclab.plan import settings as setting_table
from ipclab.plan.scenario import load_scenario


def cases(catalog, **overrides):
    scenario = load_scenario(None, catalog, {"client": "cpp", "server": "cpp", **overrides})
    return matrix.expand(scenario, catalog)


def test_defaults_change_no_id_label_or_flag(catalog):
    (case,) = cases(catalog, mechanism="tcp")
    assert case.id == "0001-tcp-cpp-cpp-16-16-cross-core-rr"
    assert case.label == "tcp cpp→cpp 16 B/16 B cross-core"
    assert dict(case.settings) == {"nodelay": "on"}  # recorded: it applies to tcp
    assert setting_table.peer_flags(case.settings, "drive") == []


def test_response_size_void_asks_for_the_void_operations(catalog):
    made = cases(catalog, mechanism="tcp,grpc", response_size="void", payload="bytes,small")
    runnable = [c for c in made if not c.skip_status]
    assert [c.label for c in runnable] == ["grpc cpp→cpp 16 B/void cross-core",
                                            "grpc cpp→cpp small ×5 void cross-core"]
    assert setting_table.peer_flags(runnable[0].settings, "drive") == ["--void"]
    assert setting_table.peer_flags(runnable[0].settings, "serve") == []
    tcp = [c for c in made if c.mechanism == "tcp" and c.payload == "bytes"]
    assert tcp[0].skip_status == "not-applicable" and "RPC operation" in tcp[0].skip_reason


def test_a_setting_that_does_not_apply_keeps_only_its_default(catalog):
    made = cases(catalog, mechanism="tcp,uds", nodelay="on,off")
    assert [(c.mechanism, dict(c.settings).get("nodelay")) for c in made] == [
        ("tcp", "on"), ("tcp", "off"), ("uds", None)]
    assert made[1].id.endswith("-rr-nodelay-off")
    assert setting_table.peer_flags(made[1].settings, "serve") == ["--nodelay", "off"]
    (uds,) = cases(catalog, mechanism="uds", nodelay="off")  # asked for alone: said, not dropped
    assert uds.skip_status == "not-applicable" and "tcp, rest, grpc only" in uds.skip_reason


def test_one_way_is_short_without_a_response(catalog):
    made = cases(catalog, mechanism="tcp", pattern="short", reply="echo,one-way",
                 response_size="0")
    assert [c.label for c in made] == ["tcp short cpp→cpp 16 B/0 B cross-core",
                                       "tcp short one-way cpp→cpp 16 B/none cross-core"]
    assert setting_table.peer_flags(made[1].settings, "drive") == ["--one-way"]
    (sized,) = cases(catalog, mechanism="tcp", pattern="short", reply="one-way")
    assert sized.skip_status == "not-applicable" and "response size is 0" in sized.skip_reason
    (rr,) = cases(catalog, mechanism="tcp", reply="one-way", response_size="0")
    assert rr.skip_status == "not-applicable" and "short pattern" in rr.skip_reason


def test_the_other_settings_reach_their_peers(catalog):
    (json,) = cases(catalog, mechanism="rest", rest_body="json")
    assert setting_table.peer_flags(json.settings, "drive") == ["--rest-body", "json"]
    (text,) = cases(catalog, mechanism="corba", corba_payload="string")
    assert text.label == "corba as string cpp→cpp 16 B/16 B cross-core"
    (poll,) = cases(catalog, mechanism="file-poll", poll_interval_us="500")
    assert setting_table.peer_flags(poll.settings, "serve") == ["--poll-interval-us", "500"]
    (small,) = cases(catalog, mechanism="rest", rest_body="json", payload="small")
    assert small.skip_status == "not-applicable" and "sized payloads" in small.skip_reason


def test_the_delivery_mode_is_named_on_every_activemq_case_and_no_other(catalog):
    made = cases(catalog, mechanism="activemq,tcp", delivery="non-persistent,persistent")
    broker = [c for c in made if c.mechanism == "activemq"]
    assert [dict(c.settings)["delivery"] for c in broker] == ["non-persistent", "persistent"]
    assert [setting_table.peer_flags(c.settings, role) for c in broker[:1]
            for role in ("serve", "drive")] == [["--delivery", "non-persistent"]] * 2
    assert "persistent" in broker[1].label and broker[1].id.endswith("-persistent")
    assert [dict(c.settings) for c in made if c.mechanism == "tcp"] == [{"nodelay": "on"}]
    (tcp,) = cases(catalog, mechanism="tcp", delivery="persistent")  # asked of tcp alone: said
    assert tcp.skip_status == "not-applicable" and "delivery applies to activemq only" in \
        tcp.skip_reason


@pytest.mark.parametrize("flag, value, expected", [
    ("nodelay", "maybe", "--nodelay: unknown nodelay 'maybe' (known: on, off)"),
    ("reply", "oneway", "--reply: unknown reply 'oneway' (known: echo, void, one-way)"),
    ("poll_interval_us", "2ms", "--poll-interval-us: '2ms' is not a valid poll_interval_us"),
])
def test_a_bad_value_is_one_line_naming_the_flag(catalog, flag, value, expected):
    with pytest.raises(UserError) as e:
        cases(catalog, mechanism="tcp", **{flag: value})
    assert str(e.value).startswith(expected)


def test_cases_csv_has_a_setting_column_only_where_a_case_changed_it(catalog):
    def header(made):
        records = [{**c.as_dict(), "status": "ok"} for c in made]
        return export_csv.render(Page("", records=records)).splitlines()[0].split(",")
    assert "nodelay" not in header(cases(catalog, mechanism="tcp"))
    assert "nodelay" in header(cases(catalog, mechanism="tcp", nodelay="on,off"))


def test_a_mechanism_option_leaves_the_other_mechanisms_alone(catalog):
    """rest_body = json beside jni (the thesis's table) changes rest and leaves jni as it is; a
    void reply beside tcp is said for tcp, since a reply is what a case exchanges."""
    made = cases(catalog, mechanism="jni,rest", client="java", rest_body="json")
    assert [(c.mechanism, c.skip_status, dict(c.settings).get("rest_body")) for c in made] == [
        ("jni", None, None), ("rest", None, "json")]


def test_the_java_binding_reaches_only_the_java_peers(catalog):
    """A peer's own setting (peer.toml [settings], PROTOCOL.md 4.6): a C++ client beside a Java
    server gets no --java-binding; a case with no Java peer over the mechanism cannot have it."""
    made = cases(catalog, mechanism="sysv-mq,uds", client="cpp,java", server="java",
                 java_binding="ffm,jni")
    runnable = [(c.mechanism, c.client, dict(c.settings).get("java_binding"))
                for c in made if not c.skip_status]
    assert runnable == [("sysv-mq", "cpp", "ffm"), ("sysv-mq", "cpp", "jni"),
                        ("sysv-mq", "java", "ffm"), ("sysv-mq", "java", "jni"),
                        ("uds", "cpp", None), ("uds", "java", None)]
    java, cpp = catalog.languages["java"], catalog.languages["cpp"]
    mixed = next(c for c in made if c.client == "cpp" and dict(c.settings).get("java_binding") == "jni")
    assert mixed.label == "sysv-mq JNI cpp→java 16 B/16 B cross-core"
    assert setting_table.peer_flags(mixed.settings, "drive", cpp, "sysv-mq") == []
    assert setting_table.peer_flags(mixed.settings, "serve", java, "sysv-mq") == [
        "--java-binding", "jni"]
    (native,) = cases(catalog, mechanism="sysv-mq", java_binding="jni")  # cpp -> cpp
    assert native.skip_status == "not-applicable" and "a side must take it" in native.skip_reason


def test_java_serialization_needs_java_on_both_sides(catalog):
    """Like any mechanism option, it leaves the cases that cannot have it alone (a C++ client's
    tcp stays framed) and is said where no case of the matrix can have it."""
    made = cases(catalog, mechanism="tcp,uds", client="java,cpp", server="java",
                 serialization="java", request_size="40,40000", response_size="40,40000",
                 sizes="zip")
    ok = [(c.mechanism, c.client, c.request_size, dict(c.settings).get("serialization"))
          for c in made if not c.skip_status]
    assert ok == [("tcp", "java", 40, "java"), ("tcp", "java", 40000, "java"),
                  ("tcp", "cpp", 40, None), ("tcp", "cpp", 40000, None),
                  ("uds", "java", 40, None), ("uds", "java", 40000, None),
                  ("uds", "cpp", 40, None), ("uds", "cpp", 40000, None)]
    assert made[0].label == "tcp java objects java→java 40 B/40 B cross-core"
    java = catalog.languages["java"]
    assert setting_table.peer_flags(made[0].settings, "drive", java, "tcp") == ["--payload", "object"]
    assert setting_table.peer_flags(made[0].settings, "serve", java, "tcp") == []
    (mixed,) = cases(catalog, mechanism="tcp", client="cpp", server="java", serialization="java")
    assert "both the client and the server must take it" in mixed.skip_reason
    (stream,) = cases(catalog, mechanism="tcp", client="java", server="java", pattern="stream",
                      serialization="java")
    assert stream.skip_status == "not-applicable" and "rr, bytes" in stream.skip_reason
    (uneven,) = cases(catalog, mechanism="tcp", client="java", server="java",
                      serialization="java", request_size="40", response_size="400")
    assert uneven.skip_status == "not-applicable" and "response size is 40, not 400" in uneven.skip_reason


def test_iceoryx2s_benchmark_way_reaches_both_sides_over_iceoryx2_rr_only(catalog):
    # --sample-write header (PROTOCOL.md 4.12): both sides write and check only each frame's
    # header, as iceoryx2's benchmark; a side that cannot (Java has no iceoryx2) leaves it out.
    made = cases(catalog, mechanism="iceoryx2-spin,uds", request_size="64KiB",
                 response_size="64KiB", sample_write="header")
    ok = [(c.mechanism, dict(c.settings).get("sample_write")) for c in made if not c.skip_status]
    assert ok == [("iceoryx2-spin", "header"), ("uds", None)]
    assert made[0].label == "iceoryx2-spin header written cpp→cpp 64 KiB/64 KiB cross-core"
    cpp = catalog.languages["cpp"]
    for role in ("drive", "serve"):
        assert setting_table.peer_flags(made[0].settings, role, cpp, "iceoryx2-spin") == [
            "--sample-write", "header"]
    (stream,) = cases(catalog, mechanism="iceoryx2", pattern="stream", sample_write="header")
    assert stream.skip_status == "not-applicable" and "the rr pattern over iceoryx2" in stream.skip_reason
    (java,) = cases(catalog, mechanism="iceoryx2", client="java", sample_write="header")
    assert java.skip_status == "not-applicable"


def test_the_blogs_conditions_reach_the_server_and_the_client(catalog):
    stream = cases(catalog, mechanism="tcp,sysv-mq", pattern="stream", message_size="1KiB",
                   read_size="1KiB")
    assert [(c.mechanism, dict(c.settings).get("read_size")) for c in stream] == [
        ("tcp", 1024), ("sysv-mq", None)]   # a queue reads a message a call: it keeps its way
    assert setting_table.peer_flags(stream[0].settings, "serve") == ["--read-size", "1024"]
    assert stream[0].label == "tcp stream reads 1 KiB cpp→cpp 1 KiB msg cross-core"
    (alone,) = cases(catalog, mechanism="sysv-mq", pattern="stream", read_size="1KiB")
    assert "stream pattern over tcp, uds, pipe, fifo only" in alone.skip_reason
    (short,) = cases(catalog, mechanism="tcp", pattern="short", source="one",
                     listen_backlog="50", response_size="0")
    assert setting_table.peer_flags(short.settings, "serve") == ["--backlog", "50"]
    assert setting_table.peer_flags(short.settings, "drive") == ["--source", "one"]
    assert short.id.endswith("-short-backlog-50-one-source")


def test_the_record_settings_are_the_records_alone(catalog):
    made = cases(catalog, mechanism="grpc", payload="bytes,small", value_range="non-negative",
                 records="per-call")
    assert [dict(c.settings).get("records") for c in made] == [None, "per-call"]
    (alone,) = cases(catalog, mechanism="grpc", value_range="non-negative")
    assert "structured records only" in alone.skip_reason
    assert setting_table.peer_flags(made[1].settings, "drive") == [
        "--value-range", "non-negative", "--records", "per-call"]
    assert made[1].label == "grpc ints ≥ 0 a record per call cpp→cpp small ×5 cross-core"


def test_the_theses_baselines_are_their_mechanisms_alone(catalog):
    (mock,) = cases(catalog, mechanism="none", mock="new-array")
    assert setting_table.peer_flags(mock.settings, "drive") == ["--mock", "new-array"]
    made = cases(catalog, mechanism="jni,ffm", client="java", server="cpp", jni_arrays="copy")
    assert [(c.mechanism, dict(c.settings).get("jni_arrays")) for c in made] == [
        ("jni", "copy"), ("ffm", None)]
    assert setting_table.peer_flags(made[0].settings, "drive") == ["--jni-arrays", "copy"]


def test_a_design_runs_the_study_each_change_alone_and_the_usual_way(catalog):
    from ipclab.plan.scenario import build_scenario
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "pattern": ["short"], "response_size": ["0"],
                      "placement": ["same-core", "cross-core"], "nodelay": ["off", "on"],
                      "source": ["one", "rotate"],
                      "design": {"study": {"placement": "same-core", "nodelay": "off",
                                           "source": "one"},
                                 "usual": {"placement": "cross-core", "nodelay": "on",
                                           "source": "rotate"}}}}
    made = matrix.expand(build_scenario(raw, "t.toml", catalog, {}, "t"), catalog)
    ran = [(c.placement, dict(c.settings)["nodelay"], dict(c.settings)["source"])
           for c in made if not c.skip_status]
    assert ran == [("same-core", "off", "one"), ("same-core", "off", "rotate"),
                   ("same-core", "on", "one"), ("cross-core", "off", "one"),
                   ("cross-core", "on", "rotate")]
    left = [c for c in made if c.skip_status]
    assert len(left) == 3 and all("one change at a time" in c.skip_reason for c in left)
    assert "this case changes placement, nodelay" in left[-1].skip_reason or \
        "changes placement, source" in left[-1].skip_reason
    # An axis the command line sets is the user's: the design no longer holds it.
    flagged = build_scenario(raw, "t.toml", catalog, {"placement": "cross-core"}, "t")
    assert flagged.matrix["design"]["study"] == {"nodelay": "off", "source": "one"}
    with pytest.raises(UserError, match=r"t.toml: matrix.design.study.placement: 'unpinned' is not in"):
        build_scenario({"matrix": {**raw["matrix"], "design": {"study": {"placement": "unpinned"}}}},
                       "t.toml", catalog, {}, "t")
