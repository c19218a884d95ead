package dev.ipclab.peer.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ipclab.peer.fuzz.FuzzLink;
import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Fuzz targets for what a stream server reads from whoever connects (issue 23): the bytes of one
 * connection, as {@link FuzzLink} hands them out. `mvn test` replays the committed inputs under
 * src/test/resources/dev/ipclab/peer/server/ServerFuzzTestInputs/; fuzz/run fuzzes one target.
 */
class ServerFuzzTest {
    /** The vectors' payloads are seed 1's: a valid request in an input checks out intact. */
    private static final long SEED = 1;
    /** The faults a stream server takes, one per input mode. */
    private static final Fault[] FAULTS = {Fault.NONE, Fault.FLIP_RESPONSE_BYTE,
            Fault.DROP_STREAM_MESSAGE, Fault.FLIP_STREAM_BYTE};
    /**
     * The connection target's largest response: any wanted up to 128 MiB is the contract's and
     * gets a response that large, which takes a second to generate. Capped, the target stays
     * fast; the frame reader target checks the limit itself.
     */
    static final int MAX_WANTED = 64 * 1024;
    /** "IPCL" as a little-endian u32 (Frame.MAGIC is the frame package's own). */
    private static final int MAGIC = 0x4C43_5049;
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    /**
     * FrameReader on its own, in the modes the servers use it (input mode 0: a stream server;
     * 1: the same over a mechanism whose reads may bring 0 bytes; 2: a load server's blocking
     * connection; 3: its non-blocking one), with the bare messages each MARK announces. Each
     * frame it hands over passed the header checks and arrived whole; its buffer never grows
     * past twice the bytes that arrived, whatever length a header claims.
     */
    @FuzzTest
    void frameReader(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        int mode = FuzzLink.mode(input);
        boolean exchangeOnly = mode >= 2;
        FuzzLink link = FuzzLink.of(input, mode == 1 || mode == 3);
        FrameReader reader = new FrameReader(exchangeOnly, mode == 3);
        while (true) {
            FrameReader.Status status = reader.next(link);
            if (status == FrameReader.Status.PARTIAL) {
                continue;  // the link's stall is over at the next read
            }
            if (status != FrameReader.Status.FRAME) {
                break;
            }
            checkFrame(reader, exchangeOnly);
            if (!messages(reader, link)) {
                break;
            }
        }
        checkMemory(reader, link);
    }

    /**
     * The real connection-serving code (ConnectionHandler, Responder, StreamTally, and the
     * object server for a stream that starts with Java serialization's header) on one
     * connection, under the fault of the input's mode. A rejection is its answer to bad bytes;
     * an IOException is one too (StreamServer drops that client and serves the next): the
     * link itself never fails. Anything else thrown is a finding.
     */
    @FuzzTest
    void connection(byte[] input) {
        if (input.length == 0) {
            return;
        }
        FuzzLink link = FuzzLink.of(capWanted(input), false);
        ConnectionHandler handler = new ConnectionHandler(
                new Responder(SEED, FAULTS[FuzzLink.mode(input)]), NOWHERE);
        try {
            handler.serve(link);
        } catch (IOException e) {
            // The server's answer to an object stream that is not one (e.g. OptionalDataException).
        }
    }

    /**
     * The real DatagramServer (udp if bit 0 of the mode byte is set, else uds-dgram; bits 1-2
     * pick the fault) on the datagrams of {@link FuzzPort}: a bad datagram is dropped with a
     * rejection and the server goes on, so serve() returning anything but 0 or throwing is a
     * finding.
     */
    @FuzzTest
    void datagrams(byte[] input) {
        if (input.length == 0) {
            return;
        }
        FuzzPort port = new FuzzPort(input, (input[0] & 1) != 0);
        DatagramServer server = new DatagramServer(port,
                new Responder(SEED, FAULTS[(input[0] >>> 1) & 3]), NOWHERE);
        port.serving(server);
        int exit = server.serve();
        if (exit != 0) {
            throw new AssertionError("the datagram server ended with " + exit);
        }
    }

    /** A frame handed over: its header passed the server's checks, all of it has arrived. */
    private static void checkFrame(FrameReader reader, boolean exchangeOnly) {
        ByteBuffer frame = reader.frame();
        int at = reader.start();
        String problem = Frame.requestProblem(frame, at, exchangeOnly);
        if (problem != null) {
            throw new AssertionError("a frame with a bad header was handed over: " + problem);
        }
        long size = Frame.HEADER_SIZE + Frame.length(frame, at);
        if (reader.unread().remaining() < size) {
            throw new AssertionError("a frame of " + size + " bytes handed over with "
                    + reader.unread().remaining());
        }
    }

    /**
     * After a MARK, the messages it announces, as ConnectionHandler reads them.
     *
     * @return false when the stream ends here (a bad MARK, or end of stream among its messages)
     */
    private static boolean messages(FrameReader reader, FuzzLink link) throws IOException {
        ByteBuffer frame = reader.frame();
        int at = reader.start();
        if (Frame.kind(frame, at) != Frame.MARK) {
            reader.consume();
            return true;
        }
        if (Frame.markProblem(frame, at, Frame.MAX_PAYLOAD) != null) {
            return false;
        }
        int size = (int) Frame.markSize(frame, at);
        long count = Frame.markCount(frame, at);
        reader.consume();
        for (long left = count; left != 0; left--) {
            if (!reader.nextMessage(link, size)) {
                return false;
            }
            reader.consume();
        }
        return true;
    }

    /** Memory follows the bytes that arrived (PROTOCOL.md 2), not the lengths claimed. */
    private static void checkMemory(FrameReader reader, FuzzLink link) {
        long bound = Math.max(FrameReader.INITIAL_CAPACITY, 2L * link.given());
        if (reader.capacity() > bound) {
            throw new AssertionError("receive buffer of " + reader.capacity() + " bytes after "
                    + link.given() + " bytes arrived");
        }
    }

    /**
     * A copy of the input whose every header-like run (the magic, anywhere) wants at most
     * {@link #MAX_WANTED} bytes: the wanted field modulo MAX_WANTED + 1.
     */
    static byte[] capWanted(byte[] input) {
        byte[] copy = input.clone();
        ByteBuffer view = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 1; at + Frame.HEADER_SIZE <= copy.length; at++) {
            if (view.getInt(at) == MAGIC) {
                int wanted = view.getInt(at + Frame.OFF_WANTED);
                view.putInt(at + Frame.OFF_WANTED, Integer.remainderUnsigned(wanted, MAX_WANTED + 1));
            }
        }
        return copy;
    }
}
