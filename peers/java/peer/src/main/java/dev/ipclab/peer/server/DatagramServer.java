package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.DatagramPort;
import dev.ipclab.peer.transport.FrameRejectedException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * udp, uds-dgram, a broker's messages (activemq, 4.7), ZeroMQ's and NNG's (4.8, 4.9) and Redis's
 * list elements (4.10): answers each datagram to its source address (a message: to its
 * reply-to; ZeroMQ, NNG: on its REP; Redis: on the replies list); a stream's messages are bare
 * datagrams after a MARK (ZeroMQ, NNG: on its PULL; section 11.1). A malformed datagram is
 * dropped with a rejection line (the library ports answer it empty); the server goes on.
 * Corrupted-request counts are kept per client address; a stream's counters are the responder's
 * (one client streams at a time).
 */
public final class DatagramServer implements Server {
    private final DatagramPort port;
    private final Responder responder;
    private final PrintStream diagnostics;
    /** Grows (a broker's message, 4.7) up to the port's receive capacity, never shrinks. */
    private ByteBuffer in;
    private final Map<Object, Long> corrupted = new HashMap<>();
    private final Responder.Reply reply;
    /** udp: between a MARK and END, where every datagram but a control frame is a message. */
    private boolean inStream;
    /** uds-dgram: the messages the last MARK announced that have not come yet. */
    private long announced;
    private volatile boolean stopping;

    public DatagramServer(DatagramPort port, Responder responder, PrintStream diagnostics) {
        this.port = port;
        this.responder = responder;
        this.diagnostics = diagnostics;
        this.in = Frame.allocate(port.firstCapacity());
        this.reply = port::reply;
    }

    @Override
    public String endpoint() {
        return port.endpoint();
    }

    @Override
    public String broker() {
        return port.broker();
    }

    @Override
    public int serve() {
        while (!stopping) {
            try {
                in.clear();
                int size = port.receive(in, !port.lossy() && announced != 0);
                if (size > in.capacity() && size <= port.receiveCapacity()) {
                    in = null; // lets the smaller buffer go before the larger one is made
                    in = Frame.allocate(size);
                    size = port.receiveAgain(in);
                }
                if (stopping) {
                    return 0;
                }
                handle(size);
            } catch (FrameRejectedException e) {
                // The port saw it first (a broker's message that is not bytes): a stream's
                // messages still announced are given up, as after a message of the wrong size.
                announced = 0;
                diagnostics.println("ipclab-peer: rejected frame: " + e.reason());
            } catch (IOException e) {
                if (stopping) {
                    return 0;
                }
                // One failed send or receive concerns one client; the server goes on.
                diagnostics.println("ipclab-peer: io: datagram failed: " + PeerException.describe(e));
                if (!port.isOpen()) {
                    return ErrorKind.IO.exitCode();
                }
            }
        }
        return 0;
    }

    private void handle(int size) throws IOException {
        if (port.lossy() ? inStream && !Frame.isControl(in, size) : announced != 0) {
            message(size);
            return;
        }
        String problem = problem(in, size, port.maxPayload());
        if (problem == null && Frame.kind(in) == Frame.MARK) {
            problem = Frame.markProblem(in, 0, port.maxMessage());
        }
        if (problem == null) {
            problem = port.answerProblem();
        }
        if (problem != null) {
            diagnostics.println("ipclab-peer: rejected frame: " + problem);
            return;
        }
        byte kind = Frame.kind(in);
        if (kind == Frame.END) {
            inStream = false;
            Long count = corrupted.remove(port.source());
            responder.answer(in, 0, reply, count == null ? 0 : count, 0);
        } else if (kind == Frame.MARK) {
            inStream = true;
            announced = Frame.markCount(in, 0);
            port.streamStarts((int) Frame.markSize(in, 0), announced);
            responder.answer(in, 0, reply, 0, 0);
        } else if (responder.answer(in, 0, reply, 0, 0) != 0) {
            corrupted.merge(port.source(), 1L, Long::sum);
        }
    }

    /**
     * One datagram of a stream (section 11.1). udp may lose and so cannot count: a datagram of
     * another size than the MARK's is a gap. uds-dgram loses nothing, so such a datagram breaks
     * the stream: it is rejected and the messages still announced are given up, so that what
     * follows is read as frames again.
     */
    private void message(int size) {
        if (size != responder.messageSize()) {
            if (port.lossy()) {
                responder.streamGap();
            } else {
                announced = 0;
                diagnostics.println("ipclab-peer: rejected frame: length mismatch");
            }
            return;
        }
        responder.message(in, 0, size);
        if (!port.lossy()) {
            announced--;
        }
    }

    /**
     * The stream checks of PROTOCOL.md section 2, then what only a datagram can get wrong: its
     * size, which may exceed the buffer it was cut to (section 4.5: a longer datagram is length
     * mismatch, whatever its header says; it crashed the server before fuzzing found it).
     */
    static String problem(ByteBuffer datagram, int size, int maxPayload) {
        if (size < Frame.HEADER_SIZE) {
            return "truncated header";
        }
        String problem = Frame.requestProblem(datagram);
        if (problem != null) {
            return problem;
        }
        if (Frame.wanted(datagram) > maxPayload) {
            return "length too large";
        }
        if (size > datagram.capacity() || size != Frame.HEADER_SIZE + Frame.length(datagram)) {
            return "length mismatch";
        }
        return null;
    }

    @Override
    public void stop() {
        stopping = true;
        try {
            port.wake();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: waking the socket: " + PeerException.describe(e));
        }
    }

    @Override
    public void close() {
        stopping = true;
        try {
            port.close();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: cannot remove the endpoint: " + PeerException.describe(e));
        }
    }
}
