"""The frame reader's fuzz corpus (fuzz/frame_reader.py; `make fuzz` grows it) replayed: each
input once found new code in the reader, and must still end read or rejected, never raise."""
import importlib.util
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"


def test_the_frame_readers_corpus_replays_cleanly():
    spec = importlib.util.spec_from_file_location("fuzz_frame_reader", FUZZ / "frame_reader.py")
    target = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(target)
    corpus = sorted((FUZZ / "corpus" / "frame_reader").iterdir())
    assert len(corpus) >= 20
    for path in corpus:
        try:
            target.one_input(path.read_bytes())
        except Exception as e:  # noqa: BLE001 (any exception is the finding)
            raise AssertionError(f"{path}: {type(e).__name__}: {e}") from e
