"""The fuzz targets' committed corpora replayed (`make fuzz` runs the fuzzers themselves): every
input that once found new code must still end in a Scenario or one clean error."""
import importlib.util

import pytest

from ipclab.plan.catalog import repo_root

FUZZ = repo_root() / "orchestrator" / "fuzz"
SEEDS = {"scenario_loader": [repo_root() / "scenarios"]}


def target(name):
    spec = importlib.util.spec_from_file_location(f"fuzz_{name}", FUZZ / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(name):
    dirs = [FUZZ / "corpus" / name, *SEEDS.get(name, [])]
    return sorted(p for d in dirs if d.is_dir() for p in d.iterdir() if p.is_file())


@pytest.mark.parametrize("name", sorted(p.stem for p in FUZZ.glob("*.py")))
def test_every_corpus_input_replays_without_a_traceback(name):
    one_input = target(name).one_input
    replayed = inputs(name)
    assert len(replayed) >= 10, f"{name}: its corpus is missing"
    for path in replayed:
        try:
            one_input(path.read_bytes())
        except Exception as e:  # noqa: BLE001 (the finding is any exception at all)
            raise AssertionError(f"{path}: {type(e).__name__}: {e} "
                                 f"(reproduce: .venv/bin/python {FUZZ / name}.py {path})") from e
