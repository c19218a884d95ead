import pytest

from ipclab.common.errors import UserError
from ipclab.plan import matrix
from ipclab.plan.catalog import Language
from ipclab.plan.placement import Cpus, pin, resolve
from ipclab.plan.scenario import build_scenario


def scenario(catalog, **axes):
    raw = {"matrix": {k: v for k, v in axes.items()}}
    return build_scenario(raw, "s.toml", catalog, {}, "s")


def test_expansion_is_the_full_product_in_a_stable_order(catalog):
    s = scenario(catalog, mechanism=["tcp", "uds"], client=["cpp", "python"], server=["java"],
                 request_size=[16], response_size=[16, 1024])
    cases = matrix.expand(s, catalog, cpus=[0, 1])
    assert len(cases) == 2 * 2 * 1 * 1 * 2
    assert [c.index for c in cases] == list(range(1, 9))
    assert (cases[0].mechanism, cases[0].client, cases[0].response_size) == ("tcp", "cpp", 16)
    assert (cases[-1].mechanism, cases[-1].client, cases[-1].response_size) == ("uds", "python", 1024)
    assert len({c.id for c in cases}) == len(cases)


def test_an_excluded_combination_is_listed_with_its_reason_and_never_run(catalog):
    s = scenario(catalog, mechanism=["tcp", "uds"], client=["cpp"], server=["cpp"],
                 request_size=[16, "1KiB"], response_size=[16],
                 exclude=[{"mechanism": "uds", "request_size": ["1KiB"]}])
    cases = matrix.expand(s, catalog, cpus=[0, 1])
    assert [(c.mechanism, c.request_size, c.skip_status) for c in cases] == [
        ("tcp", 16, None), ("tcp", 1024, None), ("uds", 16, None),
        ("uds", 1024, "not-applicable")]
    assert cases[-1].skip_reason == ("left out by the scenario ([matrix] exclude: mechanism uds; "
                                     "request_size 1 KiB)")


def test_an_exclusion_of_a_value_the_command_line_took_out_is_no_error(catalog):
    raw = {"matrix": {"mechanism": ["tcp", "uds"], "exclude": [{"mechanism": "uds"}]}}
    s = build_scenario(raw, "s.toml", catalog, {"mechanism": "tcp"}, "s")
    cases = matrix.expand(s, catalog, cpus=[0, 1])
    assert cases and all(c.mechanism == "tcp" and c.skip_status is None for c in cases)


def test_udp_over_its_datagram_limit_is_not_applicable_not_failed(catalog):
    s = scenario(catalog, mechanism=["udp"], client=["cpp"], server=["cpp"],
                 request_size=[16, 65536], response_size=[16])
    ok, big = matrix.expand(s, catalog, cpus=[0, 1])
    assert big.skip_status == "not-applicable" and "65507" in big.skip_reason
    assert ok.skip_status in (None, "unavailable")


def test_a_stream_message_is_its_size_so_a_datagram_holds_all_of_it(catalog):
    """PROTOCOL.md 11.1 (contract 4): a bare message of 65507 B is one whole UDP datagram; a
    stream message of 0 B is nothing to send."""
    s = scenario(catalog, mechanism=["udp"], client=["cpp"], server=["cpp"], pattern=["stream"],
                 message_size=[65507, 65508])
    whole, over = matrix.expand(s, catalog, cpus=[0, 1])
    assert whole.skip_status in (None, "unavailable")
    assert over.skip_status == "not-applicable" and "65508 B stream message" in over.skip_reason
    with pytest.raises(UserError, match="at least 1 byte"):
        scenario(catalog, mechanism=["tcp"], pattern=["stream"], message_size=[0])


def test_a_language_without_a_role_or_not_built_is_marked(catalog):
    catalog.languages["fake"] = Language(name="fake", display="Fake", command=["x"],
                                         mechanisms={"tcp": ["drive"]})
    catalog.languages["unbuilt"] = Language(name="unbuilt", display="Unbuilt", command=["x"],
                                            mechanisms={"tcp": ["drive", "serve"]},
                                            unavailable="not built")
    try:
        s = scenario(catalog, mechanism=["tcp"], client=["fake"], server=["fake", "unbuilt"])
        no_server, unbuilt = matrix.expand(s, catalog, cpus=[0, 1])
        assert no_server.skip_status == "not-applicable" and "no tcp serve" in no_server.skip_reason
        assert unbuilt.skip_status == "unavailable" and "not built" in unbuilt.skip_reason
    finally:
        del catalog.languages["fake"], catalog.languages["unbuilt"]


def test_placements():
    assert resolve("same-core", [0, 1]) == Cpus((1,), (1,))
    assert resolve("cross-core", [0, 1]) == Cpus((0,), (1,))
    assert resolve("unpinned", [0, 1]) == Cpus(None, None)
    assert "two CPUs" in resolve("cross-core", [3])
    assert pin(["peer", "serve"], (1,)) == ["taskset", "--cpu-list", "1", "peer", "serve"]
    assert pin(["peer"], None) == ["peer"]


def test_zipped_sizes_pair_request_and_response(catalog):
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "request_size": [40, 400], "response_size": [40, 400], "sizes": "zip"}}
    s = build_scenario(raw, "s.toml", catalog, {}, "s")
    assert [(c.request_size, c.response_size) for c in matrix.expand(s, catalog, cpus=[0, 1])] \
        == [(40, 40), (400, 400)]
    raw["matrix"]["response_size"] = [40]
    import pytest
    from ipclab.common.errors import UserError
    with pytest.raises(UserError, match="'zip' needs as many"):
        build_scenario(raw, "s.toml", catalog, {}, "s")


def test_structured_payloads_expand_by_sequence_length_and_need_an_rpc_mechanism(catalog):
    catalog.languages["fake"] = Language(name="fake", display="Fake", command=["x"],
                                         mechanisms={"tcp": ["drive", "serve"],
                                                     "grpc": ["drive", "serve"]})
    try:
        s = scenario(catalog, mechanism=["tcp", "grpc"], client=["fake"], server=["fake"],
                     request_size=[16, 1024], response_size=[16],
                     payload=["bytes", "small"], sequence_length=[5, 300])
        cases = matrix.expand(s, catalog, cpus=[0, 1])
        # per mechanism: two sized cases, then small × 5 and small × 300 (sizes do not apply)
        shapes = [(c.mechanism, c.payload, c.request_size, c.sequence_length) for c in cases]
        assert shapes[:4] == [("tcp", "bytes", 16, None), ("tcp", "bytes", 1024, None),
                              ("tcp", "small", 0, 5), ("tcp", "small", 0, 300)]
        tcp_small, grpc_small = cases[2], cases[6]
        assert tcp_small.skip_status == "not-applicable" and "RPC mechanism" in tcp_small.skip_reason
        assert grpc_small.skip_status is None
        assert grpc_small.id.endswith("-grpc-fake-fake-small-5-cross-core-rr")
        assert grpc_small.label == "grpc fake→fake small ×5 cross-core"
        assert len({c.id for c in cases}) == len(cases)
    finally:
        del catalog.languages["fake"]


def test_a_peer_limit_below_the_mechanism_makes_bigger_cases_not_applicable(catalog):
    catalog.languages["fake"] = Language(name="fake", display="Fake", command=["x"],
                                         mechanisms={"grpc": ["drive", "serve"]},
                                         max_payload={"grpc": (1024, "the framework says so")})
    try:
        s = scenario(catalog, mechanism=["grpc"], client=["fake"], server=["fake"],
                     request_size=[16, 4096], response_size=[16])
        small, big = matrix.expand(s, catalog, cpus=[0, 1])
        assert small.skip_status is None
        assert big.skip_status == "not-applicable"
        assert "Fake peer's grpc limit of 1024 B: the framework says so" in big.skip_reason
    finally:
        del catalog.languages["fake"]


def test_the_mock_has_no_server_so_it_is_the_clients_alone(catalog):
    """`none` (the thesis's Mock) sits in a Java → C++ table as one case per client, run with
    server = client (there is no server process), not one not-applicable case per server."""
    cases = matrix.expand(scenario(catalog, mechanism=["none", "tcp"], client=["java"],
                                   server=["cpp", "python"]), catalog)
    assert [(c.mechanism, c.client, c.server, c.skip_status) for c in cases] == [
        ("none", "java", "java", None), ("tcp", "java", "cpp", None),
        ("tcp", "java", "python", None)]
