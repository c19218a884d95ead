"""Fuzz target (Atheris): bytes from whoever connects, through the Python peer's server-side
reader (reader.FrameReader, the stream messages a MARK announces, mark_fields): every frame ends
read or `Rejected` with a reason, never another exception, and the reader's buffer never grows
past twice the bytes that arrived (memory follows the bytes, PROTOCOL.md 2). Run by `make fuzz`;
the peer's suite replays the corpus (tests/test_fuzz_corpus.py)."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
with atheris.instrument_imports():
    from ipclab_peer import frame
    from ipclab_peer.frame import MARK, MAX_PAYLOAD, Rejected
    from ipclab_peer.reader import FrameReader


class Link:
    """The bytes, handed out in pieces of the size the input's first byte says."""

    def __init__(self, data, piece):
        self.data, self.piece, self.given = data, piece, 0

    def read_into(self, view):
        count = min(len(view), self.piece, len(self.data) - self.given)
        view[:count] = self.data[self.given:self.given + count]
        self.given += count
        return count


def one_input(data):
    if not data:
        return
    link = Link(data[1:], 1 + data[0] * 67)
    reader = FrameReader(capacity=64)
    reader.attach(link)
    try:
        while (found := reader.next_frame()) is not None:
            kind, _, length, _, received = found
            assert len(received) == frame.HEADER_SIZE + length
            if kind == MARK:
                size, count = frame.mark_fields(received, MAX_PAYLOAD)
                while count:
                    _, taken = reader.messages(size, count)
                    count -= taken
    except Rejected:
        pass
    assert len(reader._buf) <= max(64, 2 * link.given), (len(reader._buf), link.given)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
