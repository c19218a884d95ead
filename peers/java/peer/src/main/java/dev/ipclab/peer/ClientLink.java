package dev.ipclab.peer;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** The client's side of any mechanism: send one frame, receive one frame. */
interface ClientLink extends Closeable {
    /** Sends the whole frame [position, limit) with one write call where the kernel allows. */
    void send(ByteBuffer frame) throws IOException;

    /**
     * Receives one frame into dst from offset 0. A stream reads exactly frameSize bytes (fails at
     * end of stream); a datagram link takes whatever one datagram holds, so a wrong size shows.
     *
     * @return the number of bytes received
     */
    int receive(ByteBuffer dst, int frameSize) throws IOException;

    /** How large a receive buffer for frames of frameSize must be. */
    int receiveCapacity(int frameSize);
}
