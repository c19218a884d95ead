"""`ipclab list`: what each language's peer can do, from the capability data, and whether it can
run on this machine."""
from rich.markup import escape
from rich.table import Table

from ipclab.common.units import format_size
from ipclab.plan import patterns


def capability_table(catalog):
    table = Table(title="ipclab: mechanisms × languages")
    table.add_column("mechanism")
    for lang in catalog.languages.values():
        table.add_column(f"{lang.display} ({lang.name})")
    table.add_column("max payload", justify="right")
    table.add_column("what it is")
    for mech in catalog.mechanisms.values():
        cells = [_cell(lang, mech.name) for lang in catalog.languages.values()]
        table.add_row(mech.name, *cells, format_size(mech.max_payload), mech.description)
    table.caption = _caption(catalog)
    return table


def _cell(lang, mechanism):
    roles = [name for role, name in (("drive", "client"), ("serve", "server"))
             if lang.supports(mechanism, role)]
    if not roles:
        why = lang.unsupported.get(mechanism)
        return f"[dim]unsupported: {escape(why)}[/]" if why else "[dim]unsupported[/]"
    limit = f" ≤ {format_size(lang.max_payload[mechanism][0])}" if mechanism in lang.max_payload else ""
    if mechanism in lang.codecs:  # which codec the numbers are of (a Thrift protocol's)
        limit += f", codec {lang.codecs[mechanism]}"
    if mechanism in lang.libraries:  # which version the numbers are of
        limit += f", {lang.libraries[mechanism]}"
    if lang.unavailable:
        return f"[yellow]{'+'.join(roles)}{limit}, not built[/]"
    return f"[green]{'+'.join(roles)}{limit}[/]"


def _caption(catalog):
    lines = []
    for lang in catalog.languages.values():
        state = f"not available: {lang.unavailable}" if lang.unavailable else "ready"
        lines.append(f"{lang.display} ({lang.name}): {state}")
        lines += _server_models(lang, catalog.mechanisms)
    return "\n".join(lines)


def _server_models(lang, mechanisms):
    """The burst and load server models (PROTOCOL.md 11.4, 11.5) per mechanism (an RPC
    framework's: its own server configurations, 11.5.4), an optional one missing here as
    unsupported with why, and the other models the contract names as unsupported by this peer's
    load server."""
    lines = []
    modelled = [p for p in patterns.PATTERNS.values() if p.server_models]
    # the pattern whose models are the capabilities' `server_models`; another lists its own
    (first,) = [p for p in modelled if p.models_key == "server_models"]
    for pattern in modelled:
        what, found = pattern.name, getattr(lang, pattern.models_key)
        for mech, models in found.items():
            lines.append(f"  {what} server models over {mech}: {', '.join(models)}")
            # An RPC framework's load server has its own configurations (11.5.4), not these; the
            # RPC mechanisms are those that carry structured records (section 10.2).
            own = len(mechanisms[mech].payloads) > 1
            for model, why in lang.optional_server_models.items():
                if model not in models and not own:
                    lines.append(f"  {what} {model}: unsupported here ({why})")
            missing = [m for m in lang.server_models.get(mech, ()) if m not in models]
            if pattern is not first and missing:
                lines.append(f"  {what} {', '.join(missing)} over {mech}: unsupported (a "
                             f"{first.name} model this peer's {what} server does not serve yet)")
    return lines
