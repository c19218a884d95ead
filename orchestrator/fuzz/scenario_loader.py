"""Fuzz target (Atheris): any TOML a user may write becomes a Scenario and its matrix, or one
clean error (UserError) — never a traceback. Two ways in: the input as TOML text (mutations of
the corpus, seeded with scenarios/*.toml), and the input as choices of a scenario's own keys
with values of any TOML type (where text mutation rarely gets past the parser). Run by
`make fuzz`; `make test` replays the committed corpus (orchestrator/tests/test_fuzz_corpus.py)."""
import sys
import tomllib

import atheris

with atheris.instrument_imports():
    from ipclab.common.errors import UserError
    from ipclab.plan import claims, matrix
    from ipclab.execute.probe import load_catalog
    from ipclab.plan.scenario import _KNOWN, build_scenario

CATALOG = load_catalog(check=False)
KEYS = {section: sorted(keys) for section, keys in _KNOWN.items() if keys}
WORDS = ["tcp", "uds", "cpp", "java", "python", "rr", "stream", "short", "burst", "16", "1KiB",
         "5%", "10m", "void", "zip", "mean", "median", "pivot", "none", "same-core", "jni", ""]


def value(fdp, depth=0):
    """A TOML value of any type: what a user might put where another was wanted."""
    kind = fdp.ConsumeIntInRange(0, 7 if depth < 2 else 4)
    if kind == 0:
        return fdp.ConsumeInt(8)
    if kind == 1:
        return fdp.ConsumeFloat()
    if kind == 2:
        return fdp.ConsumeBool()
    if kind == 3:
        return fdp.PickValueInList(WORDS)
    if kind == 4:
        return fdp.ConsumeUnicodeNoSurrogates(12)
    if kind == 5:
        return [value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    return {fdp.PickValueInList(sorted({k for ks in KEYS.values() for k in ks}) + ["a", "b"]):
            value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))}


def structured(data):
    fdp = atheris.FuzzedDataProvider(data)
    raw = {}
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        section = fdp.PickValueInList(list(KEYS) + ["claim", "name"])
        if section in KEYS:
            raw.setdefault(section, {})[fdp.PickValueInList(KEYS[section])] = value(fdp)
        else:
            raw[section] = value(fdp)
    return raw


def one_input(data):
    if data[:1] == b"{":
        raw = structured(data[1:])
    else:
        try:
            raw = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return  # load_scenario says so in one line; the fuzzer's business is what parses
    try:
        scenario = build_scenario(raw, "fuzz.toml", CATALOG, {}, "fuzz")
        cases = matrix.expand(scenario, CATALOG)
        claims.check_planned(scenario.claims, cases, scenario.source, overridden=False)
    except UserError:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
