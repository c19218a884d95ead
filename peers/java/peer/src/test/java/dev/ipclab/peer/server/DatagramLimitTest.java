package dev.ipclab.peer.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ipclab.peer.frame.Frame;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * A datagram longer than the server's receive buffer (PROTOCOL.md 4.5: a uds-dgram client whose
 * SO_SNDBUF allows more than the server's D) arrives cut, with its real size.
 */
class DatagramLimitTest {
    /**
     * Its header's length matching the real size, it was answered and its payload checked past
     * the buffer's end: IndexOutOfBoundsException ended the server (found by fuzzing). It is
     * length mismatch now, and the server goes on.
     */
    @Test
    void aDatagramLongerThanTheBufferIsALengthMismatch() {
        int length = FuzzPort.MAX_PAYLOAD + 100;
        ByteBuffer frame = Frame.allocate(Frame.HEADER_SIZE + length);
        Frame.writeHeader(frame, Frame.REQUEST, 0, length, 16);
        ByteBuffer input = ByteBuffer.allocate(3 + frame.capacity()).order(ByteOrder.LITTLE_ENDIAN);
        input.put((byte) 0).putShort((short) frame.capacity()).put(frame.clear());
        FuzzPort port = new FuzzPort(input.array(), false);
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        DatagramServer server = new DatagramServer(port, new Responder(1, Fault.NONE),
                diagnostics.stream);
        port.serving(server);
        assertEquals(0, server.serve());
        assertEquals("ipclab-peer: rejected frame: length mismatch" + System.lineSeparator(),
                diagnostics.text());
    }
}
