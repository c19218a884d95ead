"""iceoryx2 and iceoryx2-spin (PROTOCOL.md 4.12) with the iceoryx2 wheel of PyPI: zero-copy
shared memory, no daemon. Imported only when an iceoryx2 mechanism is used, so that
`capabilities` and the other mechanisms never load the library.

Each side makes one node whose root path is the server's directory and whose prefix is
`ipclab-<server pid>-` (so every object it puts in /dev/shm carries 4.1's tag), after setting
its umask to 077. The server creates two publish-subscribe services of byte slices,
ipclab/requests (client to server) and ipclab/responses, and, for `iceoryx2`, an event service
beside each; the client opens them. Every frame and stream message is one sample: the sender
loans a slice of exactly its length, writes the bytes into it (ctypes.memmove: the slice's own
memoryview has format '<B', which a bytearray does not assign to) and sends it, then notifies
the other side's event (`iceoryx2`). A side with nothing to take waits on its listener
(`iceoryx2`) or polls its subscriber (`iceoryx2-spin`); a client for at most --io-timeout.

The client copies each answer out of the sample into the driver's buffer (rr.py's and
stream.py's recv_frame, which ZeroMQ's link fills too) and releases it; the server validates a
frame where it lies (Samples.next: a memoryview of the sample) and releases it once answered.
With --sample-write header (rr) a REQUEST's and a RESPONSE's samples have their full size but
only their header is written (send_header) and read.

A publisher's send waits (RetryUntilDelivered) while the subscriber's buffer is full, holding
the GIL, with no timeout (the wheel offers no backpressure handler): the answers never fill the
client's buffer (one at a time), but a stream client whose server died with its buffer full
waits until it is killed.
"""
import contextlib
import ctypes
import glob
import os
import threading
import time
from importlib.metadata import version

import iceoryx2 as iox2

from ..errors import IoError, ReceiveTimeout
from ..frame import HEADER_SIZE, MARK_LENGTH, RESPONSE

REQUESTS, RESPONSES, EVENT = "ipclab/requests", "ipclab/responses", ".event"
KIND = 5  # the header's kind byte
BYTES = iox2.Slice[ctypes.c_uint8]
# Each service's subscriber buffer, subscribers and publishers (4.12); at most 8 nodes.
SERVICES = {REQUESTS: (16, 1, 4), RESPONSES: (2, 2, 1)}
MAX_NODES = 8
# How a side waits (4.12); which mechanism uses which is in mechanisms.py.
EVENT_WAIT, SPIN = "event", "spin"
SPIN_CHECKS = 1024  # a polling client looks at its clock once per this many polls
# An idle event server wakes this often to see whether shutdown asks its loop to drop the
# node; shutdown waits at most STOP_WAIT for it (a loop busy elsewhere) before removing the
# shared memory all the same.
SERVER_SLICE, STOP_WAIT = 0.1, 2.0
FIRST_SLICE = 4096  # the server's first response pool's slice; it grows as a power of two
# What the library raises (each error its own class, all plain Exceptions).
ERRORS = (iox2.NodeCreationFailure, iox2.SemanticStringError, iox2.PublishSubscribeCreateError,
          iox2.PublishSubscribeOpenError, iox2.EventCreateError, iox2.EventOpenError,
          iox2.PublisherCreateError, iox2.SubscriberCreateError, iox2.ListenerCreateError,
          iox2.NotifierCreateError, iox2.LoanError, iox2.SendError, iox2.ReceiveError,
          iox2.ListenerWaitError, iox2.NotifierNotifyError, iox2.AllocationGrowError)


def library():
    """capabilities' `library` (PROTOCOL.md 1): the wheel's version."""
    return f"iceoryx2 {version('iceoryx2')}"


def _node(prefix, root):
    os.umask(0o077)  # iceoryx2 makes some of its objects with mode 0666 (4.12)
    iox2.set_log_level(iox2.LogLevel.Error)
    config = iox2.config.default()
    config.global_cfg.root_path = iox2.Path.new(root.rstrip("/") + "/")
    config.global_cfg.prefix = iox2.FileName.new(prefix + "-")
    # The peer's own shutdown handles SIGTERM and SIGINT (shutdown.py), not the library.
    return (iox2.NodeBuilder.new().config(config)
            .signal_handling_mode(iox2.SignalHandlingMode.Disabled)
            .create(iox2.ServiceType.Ipc))


def _owner_only(root):
    """Takes group and others off the directories iceoryx2 made under the root path (it makes
    nodes/, a node's own and services/ with mode 0750 whatever the umask, 4.12)."""
    for where, directories, _ in os.walk(root):
        for name in directories:
            path = os.path.join(where, name)
            try:
                mode = os.lstat(path).st_mode & 0o7777
                if mode & 0o077:
                    os.chmod(path, mode & 0o700)
            except FileNotFoundError:  # another side's node, gone meanwhile
                continue


def _builder(node, name):
    return node.service_builder(iox2.ServiceName.new(name))


def _create_samples(node, name):
    buffer, subscribers, publishers = SERVICES[name]
    return (_builder(node, name).publish_subscribe(BYTES).history_size(0)
            .subscriber_max_buffer_size(buffer).subscriber_max_borrowed_samples(1)
            .enable_safe_overflow(False).max_subscribers(subscribers)
            .max_publishers(publishers).max_nodes(MAX_NODES).create())


def _publisher(service, largest):
    """Slices of exactly a message's length from a pool growing as a power of two, one loaned
    at a time; a send to a full buffer waits for room."""
    return (service.publisher_builder().initial_max_slice_len(max(1, largest))
            .allocation_strategy(iox2.AllocationStrategy.PowerOfTwo)
            .backpressure_strategy(iox2.BackpressureStrategy.RetryUntilDelivered)
            .max_loaned_samples(1).create())


def _source(data):
    """What ctypes.memmove reads `data` (bytes, a bytearray) from."""
    return data if isinstance(data, bytes) else (ctypes.c_char * len(data)).from_buffer(data)


class Ports:
    """One side's node and ports: send(data) one sample of `data`'s bytes (and the other
    side's event), and close(), which drops them all, the node last."""

    def __init__(self, node, services, subscriber, publisher, listener=None, notifier=None):
        self._node, self._services = node, services
        self.subscriber, self.publisher = subscriber, publisher
        self.listener, self.notifier = listener, notifier

    def send(self, data, written=None):
        """A sample of len(data) bytes, the first `written` of them (all: None) from `data`."""
        size = len(data)
        written = size if written is None else min(written, size)
        try:
            sample = self.publisher.loan_slice_uninit(size)
            if written:
                ctypes.memmove(sample.payload_ptr, _source(data), written)
            sample.assume_init().send()
            if self.notifier is not None:
                self.notifier.notify()
        except ERRORS as err:
            raise IoError(f"send of a {size}-byte sample: {type(err).__name__} {err}") from None

    def send_header(self, frame):
        """--sample-write header (4.12): a frame's sample with its 24-byte header alone written,
        the payload whatever the pool holds."""
        self.send(frame, HEADER_SIZE)

    def receive(self):
        """The next sample, or None."""
        try:
            return self.subscriber.receive()
        except ERRORS as err:
            raise IoError(f"receive: {type(err).__name__} {err}") from None

    def close(self):
        for port in (self.subscriber, self.publisher, self.listener, self.notifier):
            if port is not None:
                port.delete()
        self.subscriber = self.publisher = self.listener = self.notifier = None
        self._services = self._node = None  # the last references: the node is dropped


class ClientLink:
    """The link of rr.py and stream.py: send_all(frame) and send_message(data) send one
    sample on ipclab/requests, recv_frame(view) copies the next sample of ipclab/responses into
    `view` as far as it fits and returns its real size (so a wrong size is seen, as on a
    datagram link)."""

    def __init__(self, endpoint, config, mode):
        self._timeout = config.io_timeout
        self._targets = {}  # id(view) -> (view, what memmove writes to)
        # --sample-write header (4.12): a REQUEST's header alone written, a RESPONSE's read.
        header = config.sample_write == "header"
        self._header_only = header
        node = _node(endpoint.prefix, endpoint.root)
        try:
            requests, responses = (_builder(node, name).publish_subscribe(BYTES).open()
                                   for name in (REQUESTS, RESPONSES))
            events = [_builder(node, name + EVENT).event().open()
                      for name in (REQUESTS, RESPONSES)] if mode == EVENT_WAIT else []
            subscriber = responses.subscriber_builder().create()
            listener = events[1].listener_builder().create() if events else None
            publisher = _publisher(requests, largest_frame(config))
            notifier = events[0].notifier_builder().create() if events else None
        except ERRORS as err:
            raise IoError(f"open the iceoryx2 services of {endpoint}: {type(err).__name__} "
                          f"{err}") from None
        self._ports = Ports(node, (requests, responses, *events), subscriber, publisher,
                            listener, notifier)
        _owner_only(endpoint.root)
        self.send_all = self._ports.send_header if header else self._ports.send
        self.send_message = self._ports.send

    def recv_frame(self, view):
        ports = self._ports
        sample = ports.receive()
        if sample is None:
            sample = self._wait() if ports.listener is not None else self._spin()
        size = sample.header.number_of_elements
        fits = min(size, len(view))
        if fits:
            if self._header_only and fits > HEADER_SIZE and \
                    ctypes.c_uint8.from_address(sample.payload_ptr + KIND).value == RESPONSE:
                fits = HEADER_SIZE  # a payload never written is never read
            ctypes.memmove(self._target(view), sample.payload_ptr, fits)
        sample.delete()
        return size

    def _target(self, view):
        held = self._targets.get(id(view))
        if held is None or held[0] is not view:
            held = self._targets[id(view)] = (view, (ctypes.c_char * len(view)).from_buffer(view))
        return held[1]

    def _wait(self):
        """iceoryx2: the next sample, sleeping on the listener meanwhile (a wake-up without a
        sample, an event of an answer taken before, waits again)."""
        ports, deadline = self._ports, time.monotonic() + self._timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timed_out()
            try:
                ports.listener.timed_wait(iox2.Duration.from_secs_f64(left))
            except ERRORS as err:
                raise IoError(f"wait on {RESPONSES}{EVENT}: {type(err).__name__} {err}") \
                    from None
            sample = ports.receive()
            if sample is not None:
                return sample

    def _spin(self):
        """iceoryx2-spin: the next sample, polling, the clock read every SPIN_CHECKS polls."""
        receive, deadline = self._ports.receive, time.monotonic() + self._timeout
        while True:
            for _ in range(SPIN_CHECKS):
                sample = receive()
                if sample is not None:
                    return sample
            if time.monotonic() >= deadline:
                raise self._timed_out()

    def _timed_out(self):
        return ReceiveTimeout(f"nothing on {RESPONSES} within {self._timeout:g} s")

    def close(self):
        self._ports.close()
        self._targets.clear()


def largest_frame(config):
    """The largest sample the client sends: rr's REQUEST, a stream's message or its MARK."""
    if config.pattern == "stream":
        return max(config.message_size, HEADER_SIZE + MARK_LENGTH)
    return HEADER_SIZE + config.request_size


def connect(endpoint, config, mode):
    return ClientLink(endpoint, config, mode)


class Samples:
    """The server's node, services and ports in the directory --endpoint names; `endpoint` is
    READY's. next() waits for the next sample and gives its bytes where they lie, release()
    lets it go, send(frame) answers. Shutdown (another thread) asks the loop to drop the node
    and waits for it, then removes every /dev/shm object the prefix names (iceoryx2 leaves its
    node-global management segment behind, 4.12)."""

    def __init__(self, directory, cleanup, mode):
        if not os.path.isdir(directory.path):
            raise IoError(f"{directory}: not a directory")
        self.prefix = f"ipclab-{os.getpid()}"
        self.endpoint = f"posix:/{self.prefix},{directory}"
        self._loop = threading.current_thread()
        self._stopping, self._stopped = False, threading.Event()
        self._sample = self._body = self._publisher = None
        self.another_client = False  # the sample next() gave is a new client's (its publisher's)
        with cleanup.creating() as created:
            created(self.remove)
            try:
                node = _node(self.prefix, directory.path)
                for path in self._objects("*.global_mgmt"):  # made 0666 whatever the umask
                    os.chmod(path, 0o600)
                self._ports = self._open(node, mode)
                _owner_only(directory.path)
            except ERRORS as err:
                raise IoError(f"create the iceoryx2 services in {directory}: "
                              f"{type(err).__name__} {err}") from None
        self.send, self.send_header = self._ports.send, self._ports.send_header
        self._wait = self._sleep if mode == EVENT_WAIT else _poll

    @staticmethod
    def _open(node, mode):
        requests, responses = (_create_samples(node, name) for name in (REQUESTS, RESPONSES))
        events = [_builder(node, name + EVENT).event().create()
                  for name in (REQUESTS, RESPONSES)] if mode == EVENT_WAIT else []
        subscriber = requests.subscriber_builder().create()
        publisher = _publisher(responses, FIRST_SLICE)
        listener = events[0].listener_builder().create() if events else None
        notifier = events[1].notifier_builder().create() if events else None
        return Ports(node, (requests, responses, *events), subscriber, publisher, listener,
                     notifier)

    def next(self):
        """The next sample's bytes (a read-only memoryview of the sample), or None once
        shutdown has asked the loop to stop (the node is gone then)."""
        receive, wait = self._ports.receive, self._wait
        sample = receive()
        while sample is None:
            if self._stopping:
                self._close()
                return None
            wait()
            sample = receive()
        header = sample.header
        size, publisher = header.number_of_elements, header.publisher_id.value
        self.another_client, self._publisher = publisher != self._publisher, publisher
        self._sample = sample
        self._body = memoryview((ctypes.c_uint8 * size).from_address(sample.payload_ptr)) \
            .cast("B")
        return self._body

    def release(self):
        self._body.release()
        self._sample.delete()
        self._sample = self._body = None

    def _sleep(self):
        try:
            self._ports.listener.timed_wait(iox2.Duration.from_secs_f64(SERVER_SLICE))
        except ERRORS as err:
            raise IoError(f"wait on {REQUESTS}{EVENT}: {type(err).__name__} {err}") from None

    def _close(self):
        if self._sample is not None:
            self.release()
        ports = getattr(self, "_ports", None)
        if ports is not None:
            ports.close()
        self._stopped.set()

    def remove(self):
        """Cleanup's, at exit: the node dropped (by the loop, asked to, unless this is its
        thread), then what the prefix names in /dev/shm removed."""
        if threading.current_thread() is self._loop:
            self._close()
        else:
            self._stopping = True
            self._stopped.wait(STOP_WAIT)
        for path in self._objects("*"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def _objects(self, pattern):
        """The objects in /dev/shm that the prefix names, those matching `pattern` after it."""
        return glob.glob(f"/dev/shm/{glob.escape(self.prefix)}-{pattern}")


def _poll():
    pass


def listen(directory, config, cleanup, mode):
    return Samples(directory, cleanup, mode)
