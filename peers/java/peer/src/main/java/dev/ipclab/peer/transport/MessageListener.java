package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * A message mechanism's server side: one set of kernel objects (made exclusively, before READY),
 * serving one client after another over the same objects. Each accept is a fresh stream, so a
 * rejected frame's leftover bytes are dropped with the old one.
 */
final class MessageListener extends StoppableListener {
    private final MessageChannel channel;
    private boolean closed;
    private volatile MessageStream current;

    MessageListener(String endpoint, MessageChannel channel) {
        super(endpoint);
        this.channel = channel;
    }

    @Override
    StreamConnection next() {
        MessageStream stream = new MessageStream(channel, false);
        current = stream;
        // A stop between accept's check and the line above saw no stream to stop, and its wake
        // message would be read by this one as an empty message, not as the end: stop it here.
        // (stop writes `stopped`, then reads `current`; this writes `current`, then reads
        // `stopped`: with both volatile, one of the two sees the other.)
        if (stopped) {
            stream.stop();
        }
        return stream;
    }

    @Override
    public void stop() throws IOException {
        stopped = true;
        MessageStream stream = current;
        if (stream != null) {
            stream.stop();
        }
        channel.wake();
    }

    /** Removes the kernel objects, once. */
    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            stopped = true;
            channel.close();
        }
    }
}
