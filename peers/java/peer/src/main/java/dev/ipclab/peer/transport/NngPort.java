package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The nng-tcp and nng-ipc server (PROTOCOL.md 4.9) over libnng ({@link Nng}): a REP request
 * socket (rr's frames, a stream's MARK and END) and a PULL stream socket (a stream's messages) as
 * one {@link DatagramPort}, so the {@code DatagramServer} checks and answers every frame as it
 * does a datagram's; each frame or stream message is one NNG message.
 *
 * <p>While a MARK's messages are due it reads only the stream socket, so that a control frame is
 * taken only once every message announced before it has come. Otherwise it waits for the next
 * request as a plain rep0 server does, blocked in the library's receive (a wait on both sockets'
 * NNG_OPT_RECVFD would cost a poll and the library's notification pipe per round trip, about 5%
 * of a 16-byte one in the C++ peer), and rejects the stream messages nobody announced when that
 * request comes, before it is answered. REP must answer every request before it takes the next:
 * one left unanswered (rejected) gets an empty message first. Only the serving thread receives
 * and answers; another stops it by closing the sockets ({@link #wake}), which libnng allows under
 * a blocked call.
 */
public final class NngPort extends WholeMessagePort {
    /** A native byte of which a send takes none: the empty answer. */
    private static final MemorySegment EMPTY = Arena.global().allocate(1);
    private static final int OWNER_ONLY = 0600;

    private final Nng.Socket requests;
    private final Nng.Socket stream;
    private final List<Path> files;
    /** The frame or message received last; kept until the next receive (receiveAgain). */
    private final Nng.Message message = new Nng.Message();
    private final Nng.Message stray = new Nng.Message();
    private final Segments segments = new Segments();
    /** A request was handed out and not yet answered. */
    private boolean owed;
    /** A request is received but not handed out: stray stream messages are rejected first. */
    private boolean held;
    private volatile boolean open = true;

    private NngPort(Nng.Socket requests, Nng.Socket stream, List<Path> files, String endpoint) {
        super(endpoint);
        this.requests = requests;
        this.stream = stream;
        this.files = files;
    }

    /** nng-tcp's server: listens at HOST:PORT (port 0: the library's choice) and a second port. */
    public static DatagramPort bindTcp(String endpoint) throws IOException {
        Endpoints.HostPort at = Endpoints.hostPort(endpoint);
        String prefix = SocketPair.tcpPrefix(at);
        return open(List.of(), (requests, stream) -> {
            int p1 = requests.listen(prefix + at.port(), 0);
            int p2 = stream.listen(prefix + "0", 0);
            return prefix + p1 + "," + prefix + p2;
        });
    }

    /**
     * nng-ipc's server: listens at PATH and PATH.stream, refusing either if it exists (libnng
     * would take over a stale one), each made with mode 0600; both are removed on close.
     */
    public static DatagramPort bindIpc(String endpoint) throws IOException {
        String path = Endpoints.path(endpoint);
        List<Path> files = SocketPair.ipcFiles(path);
        SocketPair sockets = SocketPair.ipc(path);
        return open(files, (requests, stream) -> {
            requests.listen(sockets.requests(), OWNER_ONLY);
            stream.listen(sockets.stream(), OWNER_ONLY);
            return path;
        });
    }

    private interface Listening {
        /** Listens on both sockets; returns READY's endpoint. */
        String listen(Nng.Socket requests, Nng.Socket stream) throws IOException;
    }

    private static NngPort open(List<Path> files, Listening listening) throws IOException {
        List<Nng.Socket> made = new ArrayList<>();
        try {
            Nng.Socket requests = new Nng.Socket(Nng.Protocol.REP);
            made.add(requests);
            Nng.Socket stream = new Nng.Socket(Nng.Protocol.PULL);
            made.add(stream);
            // The library drops a connection whose message is longer, before it allocates.
            requests.setSize(Nng.RECVMAXSZ, Nng.REQUEST_ID + Frame.HEADER_SIZE
                    + (long) Frame.MAX_PAYLOAD);
            stream.setSize(Nng.RECVMAXSZ, Frame.MAX_PAYLOAD);
            String endpoint = listening.listen(requests, stream);
            return new NngPort(requests, stream, files, endpoint);
        } catch (IOException | RuntimeException e) {
            made.forEach(Nng.Socket::close);
            SocketPair.remove(files, e);
            throw e;
        }
    }

    @Override
    public int receive(ByteBuffer dst, boolean messageDue) throws IOException {
        try {
            answerOwed();
            if (messageDue) { // the stream socket alone: no control frame overtakes a message
                message.receive(stream, "receive of a stream message");
                return copy(dst);
            }
            if (!held) {
                message.receive(requests, "receive on the request socket");
                held = true;
            }
            if (stray.tryReceive(stream, "receive on the stream socket")) {
                stray.release(); // nothing was announced: rejected, one per call, then the request
                throw new FrameRejectedException("unexpected message");
            }
            held = false;
            owed = true;
            return copy(dst);
        } catch (Nng.NngException e) {
            throw stopped(e);
        }
    }

    /** REP answers every request before it takes the next: a rejected one, empty. */
    private void answerOwed() throws IOException {
        if (owed) {
            owed = false;
            requests.send(EMPTY, 0, "the empty answer to a rejected request");
        }
    }

    /** A call that failed because the sockets were closed: the port is; its messages go. */
    private IOException stopped(Nng.NngException e) {
        if (e.closed()) {
            open = false;
            message.release();
            stray.release();
        }
        return e;
    }

    private int copy(ByteBuffer dst) {
        return copy(message.body(), dst, segments);
    }

    @Override
    public int receiveAgain(ByteBuffer dst) {
        return copy(dst);
    }

    /** The answer to the request just handed out, on REP. */
    @Override
    public void reply(ByteBuffer frame) throws IOException {
        try {
            requests.send(segments.of(frame), frame.limit(), "an answer");
            owed = false;
        } catch (Nng.NngException e) {
            throw stopped(e);
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Closing the sockets makes the serving thread's blocked call return (NNG_ECLOSED). */
    @Override
    public void wake() {
        requests.close();
        stream.close();
    }

    /**
     * Closes both sockets (the serving thread's calls fail at once and free its messages) and
     * removes the ipc files.
     */
    @Override
    public void close() throws IOException {
        open = false;
        wake();
        IOException failure = new IOException("cannot remove the ipc socket files");
        SocketPair.remove(files, failure);
        if (failure.getSuppressed().length != 0) {
            throw failure;
        }
    }
}
