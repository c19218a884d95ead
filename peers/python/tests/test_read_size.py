"""The stream server's --read-size (contract 6, PROTOCOL.md 11.1): each read of a stream's
message bytes asks for at most N, control frames are read as before; streams and round trips
through a server with one. Its parsing is in test_conditions.py."""
import pytest
from peers import Drive, serving
from test_roundtrip import check_ok
from test_stream import check_stream_ok, stream
from test_vectors import BytesLink

from ipclab_peer import frame, payload
from ipclab_peer.messages import take_messages
from ipclab_peer.reader import FrameReader


class AskingLink(BytesLink):
    """A link that hands out what it holds as the reads ask, logging each read's size."""

    def __init__(self, data):
        super().__init__(data, piece=len(data))
        self.asked = []

    def read_into(self, view):
        self.asked.append(len(view))
        return super().read_into(view)


class Counted:
    def __init__(self):
        self.messages = []

    def add(self, view, count):
        self.messages.append((bytes(view), count))


@pytest.mark.parametrize("size,count,limit", [(3000, 4, 1024), (100, 50, 1024), (7, 9, 5),
                                              (100, 3, 1_000_000), (1, 1, 1)])
def test_each_read_of_message_bytes_asks_for_min_of_n_and_what_is_due(size, count, limit):
    """A MARK of `count` messages of `size` bytes, its messages, END: the MARK is read as
    before (greedily, with whatever message bytes came with it), each later read asks for
    exactly min(N, the announced bytes not yet buffered), and END is left for the next frame."""
    messages = b"".join(payload.payload(1, payload.REQUEST_STREAM, 1 + i, size)
                        for i in range(count))
    mark, end = frame.encode_mark(0, size, count), frame.encode_header(frame.END, 9, 0, 0)
    link = AskingLink(mark + messages + end)
    reader = FrameReader(capacity=64, read_size=limit)
    reader.attach(link)
    assert reader.next_frame()[0] == frame.MARK
    assert link.asked == [64]  # the control frame's greedy read, message bytes and all
    tally = Counted()
    take_messages(reader, tally, size, count)
    assert b"".join(view for view, _ in tally.messages) == messages
    due = len(messages) - min(len(messages), 64 - len(mark))
    for ask in link.asked[1:]:
        assert ask == min(limit, due)
        due -= ask  # the link has what is asked for, so each read brings all of it
    assert due == 0  # and nothing past the K messages was asked for
    asked = len(link.asked)
    assert reader.next_frame()[:2] == (frame.END, 9)
    assert len(link.asked) == asked + (len(mark + messages + end) > 64)  # END: greedy


def test_read_size_0_reads_greedily():
    messages = payload.payload(1, payload.REQUEST_STREAM, 1, 3000) * 4
    link = AskingLink(frame.encode_mark(0, 3000, 4) + messages)
    reader = FrameReader(capacity=64)
    reader.attach(link)
    reader.next_frame()
    take_messages(reader, Counted(), 3000, 4)
    assert max(link.asked) > 1024  # the whole room of the buffer, not a bounded read


@pytest.mark.parametrize("mechanism", ["tcp", "uds", "pipe", "fifo"])
@pytest.mark.parametrize("size,limit", [(3000, 1024), (100, 1024), (1027, 1)])
def test_streams_with_a_read_size(mechanism, size, limit, workdir):
    messages = 20 if limit == 1 else 300
    with serving(mechanism, workdir, "--read-size", str(limit)) as case:
        run = stream(workdir, case, mechanism, size, messages, "--warmup", "3")
        case.release_client_fds()
        check_stream_ok(run, mechanism, size, messages, warmup=3)
        assert case.server.drain_stderr() == []


def test_a_read_size_server_still_serves_round_trips(workdir):
    with serving("tcp", workdir, "--read-size", "1024") as case:
        run = Drive(workdir, "tcp", case.endpoint, 5000, 3000, iterations=5)
        check_ok(run, "tcp", 5000, 3000, 5)
