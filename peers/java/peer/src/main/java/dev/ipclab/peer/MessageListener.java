package dev.ipclab.peer;

import java.io.IOException;

/**
 * A message mechanism's server side: one set of kernel objects (made exclusively, before READY),
 * serving one client after another over the same objects. Each accept is a fresh stream, so a
 * rejected frame's leftover bytes are dropped with the old one.
 */
final class MessageListener implements StreamListener {
    private final String endpoint;
    private final MessageChannel channel;
    private volatile boolean stopped;
    private boolean closed;
    private volatile MessageStream current;

    MessageListener(String endpoint, MessageChannel channel) {
        this.endpoint = endpoint;
        this.channel = channel;
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public StreamConnection accept() {
        if (stopped) {
            return null;
        }
        MessageStream stream = new MessageStream(channel, false);
        current = stream;
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
