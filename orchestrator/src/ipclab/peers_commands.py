"""`ipclab peers build|test|clean`: each language peer as its peer.toml says, thin over
execute/toolchain.py; cli.py adds the group."""
import click

from ipclab.execute.probe import load_catalog
from ipclab.terminal_console import say


@click.group()
def peers():
    """Build, test and check the language peers (their peer.toml says how)."""


@peers.command("build")
@click.argument("names", nargs=-1)
@click.option("--available", is_flag=True, help="skip a language whose toolchain is missing "
              "(one line says which and how to get it) instead of failing")
def peers_build(names, available):
    """Build NAMES (languages or peers/ directories; default all), then check their capabilities."""
    from ipclab.execute import toolchain
    if available:
        names = toolchain.buildable(load_catalog(check=False), names, echo=say)
        if not names:
            return
    _each_peer(names, toolchain.build)
    _each_peer(names, toolchain.check)   # a fresh catalog: the artifacts may be new


@peers.command("test")
@click.argument("names", nargs=-1)
def peers_test(names):
    """Run the test suites of NAMES (default all)."""
    from ipclab.execute import toolchain
    _each_peer(names, toolchain.test)


@peers.command("clean")
@click.argument("names", nargs=-1)
def peers_clean(names):
    """Remove the build outputs of NAMES (default all)."""
    from ipclab.execute import toolchain
    _each_peer(names, toolchain.clean)


def _each_peer(names, action):
    from ipclab.execute import toolchain
    catalog = load_catalog(check=False)
    for lang in toolchain.select(catalog, names):
        action(catalog, lang, echo=click.echo)
