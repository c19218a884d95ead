from ipclab import matrix
from ipclab.catalog import Language
from ipclab.placement import Cpus, pin, resolve
from ipclab.scenario import build_scenario


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


def test_udp_over_its_datagram_limit_is_not_applicable_not_failed(catalog):
    s = scenario(catalog, mechanism=["udp"], client=["cpp"], server=["cpp"],
                 request_size=[16, 65536], response_size=[16])
    ok, big = matrix.expand(s, catalog, cpus=[0, 1])
    assert big.skip_status == "not-applicable" and "65507" in big.skip_reason
    assert ok.skip_status in (None, "unavailable")


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
    from ipclab.errors import UserError
    with pytest.raises(UserError, match="'zip' needs as many"):
        build_scenario(raw, "s.toml", catalog, {}, "s")
