"""`make test`'s shards (conftest.py deal): every test in exactly one shard, the same in every
shard's process, a heavy test balanced by the light ones, each weighed by its measured seconds."""
from types import SimpleNamespace

from conftest import deal


def item(weight=None, nodeid=None):
    marker = SimpleNamespace(args=(weight,)) if weight else None
    return SimpleNamespace(get_closest_marker=lambda name: marker if name == "weight" else None,
                           nodeid=nodeid)


def test_a_heavy_test_is_balanced_by_the_light_ones():
    items = [item() for _ in range(10)] + [item(30)] + [item() for _ in range(40)]
    shards = deal(items, 2, seconds={})
    heavy = shards[10]
    load = [sum(30 if i == 10 else 1 for i, s in enumerate(shards) if s == k) for k in (0, 1)]
    assert load == [40, 40] and shards.count(heavy) == 11
    assert deal(items, 2, seconds={}) == shards  # every shard's process deals the same


def test_every_test_is_in_one_shard():
    shards = deal([item() for _ in range(7)], 3, seconds={})
    assert sorted(shards) == [0, 0, 0, 1, 1, 2, 2]


def test_tests_sharing_a_module_fixture_are_dealt_together():
    def sharing(module):
        fixture = SimpleNamespace(scope="module")
        return SimpleNamespace(get_closest_marker=lambda name: None,
                               module=SimpleNamespace(__name__=module),
                               _fixtureinfo=SimpleNamespace(argnames=("tiny_run", "tmp_path"),
                                                            name2fixturedefs={"tiny_run": [fixture]}))
    items = [sharing("test_html_report") for _ in range(4)] + [item() for _ in range(8)]
    shards = deal(items, 3, seconds={})
    assert len(set(shards[:4])) == 1 and sorted(shards).count(shards[0]) == 4


def test_each_test_weighs_its_measured_seconds():
    # Two 60 s tests and twelve of 10 s: each shard one long one and six short; a test not
    # measured yet counts as the median measured one (10 s).
    seconds = {"long1": 60.0, "long2": 60.0, **{f"short{i}": 10.0 for i in range(12)}}
    items = [item(nodeid=n) for n in seconds] + [item(nodeid="new")]
    shards = deal(items, 2, seconds=seconds)
    load = [sum(seconds.get(it.nodeid, 10.0) for it, s in zip(items, shards) if s == k)
            for k in (0, 1)]
    assert shards[0] != shards[1] and sorted(load) == [120.0, 130.0]
