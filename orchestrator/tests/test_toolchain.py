"""A missing toolchain stops only its own language: `ipclab peers build --available` (what
`make run` calls) skips it with one line saying which and how to get it; the cases of a language
that is not built are unavailable with that reason, never a silent drop."""
from pathlib import Path
from types import SimpleNamespace

from ipclab.execute import toolchain
from ipclab.execute.probe import load_catalog, locate_all, why_unavailable
from ipclab.plan.catalog import Language

ROOT = Path(__file__).resolve().parents[2]


def language(name, locate_command):
    return locate_all(Language(name=name, display=name.capitalize(), command=["true"],
                               mechanisms={}, root=ROOT,
                               locate={"jdk": {"command": locate_command, "missing":
                                               "no JDK 25 found: set IPCLAB_JAVA_HOME to a JDK 25"}}))


def test_a_language_without_its_toolchain_is_skipped_with_one_line():
    lines = []
    catalog = SimpleNamespace(languages={"java": language("java", ["false"]),
                                         "cpp": language("cpp", ["echo", "/opt/jdk"])})
    assert toolchain.buildable(catalog, [], echo=lines.append) == ["cpp"]
    assert lines == ["ipclab: the Java peer is not built: no JDK 25 found: set IPCLAB_JAVA_HOME to "
                     "a JDK 25 (its cases will be unavailable; make test needs it)"]


def test_its_cases_say_why_they_are_unavailable():
    lang = language("java", ["false"])
    assert why_unavailable(lang, ROOT) == "no JDK 25 found: set IPCLAB_JAVA_HOME to a JDK 25"
    optional = language("cpp", ["false"])
    optional.locate["jdk"]["required"] = False  # the C++ build's JDK (JNI headers) is optional
    assert optional.missing_tool() is None


def test_no_build_input_is_a_build_output():
    # A build writes its outputs after reading its inputs, so an input glob that reaches into
    # the outputs makes every run that regenerates them (`mvn test` writes the generated
    # sources anew) rebuild the peer next time. On a built tree the outputs are there to match.
    for lang in load_catalog().languages.values():
        outputs = [ROOT / c for c in lang.clean]
        for pattern in lang.build_inputs:
            inside = [p for p in ROOT.glob(pattern) if any(p.is_relative_to(o) for o in outputs)]
            assert inside == [], (lang.name, pattern, inside[:3])
