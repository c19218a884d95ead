"""Does each built peer do what its peer.toml says? (PROTOCOL.md section 1, `capabilities`.)

Every peer answers `PEER capabilities` with one JSON object generated from its own table of
mechanisms (execute/probe.py asks, once per build). Here it is compared with peer.toml and
protocol/mechanisms.toml, and what only the peer knows is taken from it. A disagreement is one
line naming the peer, the field and both values: a stale build or a peer.toml that claims too
much must never produce numbers."""
from ipclab.common.errors import UserError

CONTRACT = 6           # the contract version this orchestrator speaks (PROTOCOL.md)


def compare(lang, answer, mechanisms):
    """Raises UserError naming peer, field and both values at the first disagreement."""
    where, who = lang.toml_path or lang.name, f"the {lang.display} peer"
    _same(where, "contract", CONTRACT, answer.get("contract"),
          f"ipclab speaks contract {CONTRACT}, {who} answers {answer.get('contract')!r}: "
          f"rebuild it ({lang.build_hint})")
    _same(where, "language", lang.name, answer.get("language"),
          f"peer.toml says language {lang.name!r}, {who} says {answer.get('language')!r}")
    claimed, real = set(lang.mechanisms), set(answer["mechanisms"])
    for mech in sorted(claimed - real - set(lang.needs)):
        raise UserError(f"{where}: [mechanisms] {mech}: peer.toml claims it, {who} does not "
                        f"implement it (its capabilities list {len(real)} mechanisms, not {mech})")
    claimed &= real  # a mechanism whose library the build lacked is apply()'s to set aside
    for mech in sorted(real - claimed):
        raise UserError(f"{where}: [mechanisms]: {who} implements {mech}, peer.toml does not "
                        f"list it")
    for mech in sorted(claimed):
        got = answer["mechanisms"][mech]
        _same(where, f"[mechanisms] {mech} roles", sorted(lang.mechanisms[mech]),
              sorted(got.get("roles", [])))
        _same(where, f"[mechanisms] {mech} patterns", sorted(lang.patterns_of(mech)),
              sorted(got.get("patterns", [])))
        for key in MODEL_KEYS:
            _check_models(where, lang, mech, key, got.get(key, []))
        _check_limit(where, lang, mechanisms[mech], got.get("max_payload"))


# The server models a peer lists per mechanism: the burst server's (PROTOCOL.md 11.4) and the
# load server's (11.5), each a Language field of the same name.
MODEL_KEYS = ("server_models", "load_models")


def _check_models(where, lang, mech, key, got):
    """Server models: every one peer.toml lists, and nothing else but the models it names
    optional (present only where the machine allows them)."""
    claimed, optional = set(getattr(lang, key).get(mech, [])), set(lang.optional_server_models)
    if not claimed <= set(got) <= claimed | optional:
        _same(where, f"[mechanisms] {mech} {key}", sorted(claimed), sorted(got),
              f"peer.toml says {sorted(claimed)} (optional: {sorted(optional)}), the "
              f"{lang.display} peer answers {sorted(got)}")


def _check_limit(where, lang, mech, got):
    if not isinstance(got, int) or got < 0:
        raise UserError(f"{where}: [mechanisms] {mech.name} max_payload: the {lang.display} peer "
                        f"answers {got!r}, not a number of bytes")
    if mech.peer_limit:
        if got > mech.max_payload:
            raise UserError(f"{where}: [mechanisms] {mech.name} max_payload: the {lang.display} "
                            f"peer answers {got}, over the contract's {mech.max_payload}")
        return
    expected = min(mech.max_payload, lang.max_payload.get(mech.name, (mech.max_payload,))[0])
    _same(where, f"[max_payload] {mech.name}", expected, got,
          f"peer.toml and mechanisms.toml give {expected} B, the {lang.display} peer "
          f"answers {got} B")


def apply(lang, answer, mechanisms):
    """What only the running peer knows: the mechanisms its build left out for want of their
    library (unsupported, saying which: a missing library costs its mechanisms alone), kernel
    limits (peer_limit mechanisms), its runtime, the codec of a framework that has more than
    one, the library a mechanism is carried over."""
    for mech in sorted(set(lang.mechanisms) - set(answer["mechanisms"])):  # its `needs` missing
        del lang.mechanisms[mech]
        lang.unsupported[mech] = (f"the {lang.display} peer was built without "
                                  f"{lang.needs[mech]}")
    lang.runtime = answer.get("runtime")
    lang.codecs = _strings(answer, "codec")
    lang.libraries = _strings(answer, "library")
    for name, got in answer["mechanisms"].items():  # optional server models present here
        for key in MODEL_KEYS:
            if got.get(key) and name in getattr(lang, key):
                getattr(lang, key)[name] = list(got[key])
    for name, got in answer["mechanisms"].items():
        mech = mechanisms.get(name)
        if mech and mech.peer_limit and name in lang.mechanisms:
            lang.max_payload[name] = (got["max_payload"], mech.limit_reason)


def _strings(answer, key):
    """mechanism -> its entry's `key`, where that is a non-empty string."""
    return {name: got[key] for name, got in answer["mechanisms"].items()
            if isinstance(got.get(key), str) and got[key]}


def _same(where, field, expected, got, message=None):
    if expected != got:
        raise UserError(f"{where}: {field}: " + (message or f"peer.toml says {expected!r}, the "
                                                           f"peer answers {got!r}"))
