package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The "stream over messages" adapter of PROTOCOL.md section 4.1: a frame written in one call is
 * cut into messages of exactly M bytes, the last one shorter; reads hand out the bytes of the
 * received messages in order, as much as the caller's buffer takes, so the frame logic of the
 * stream mechanisms works unchanged. No allocation.
 */
final class MessageStream implements StreamConnection {
    private final MessageChannel channel;
    /** What closing the stream releases: the channel (client), its queues (short), or nothing. */
    private Closeable release;
    private volatile boolean stopped;
    private int pendingOffset;
    private int pendingLength;
    private boolean holding;

    /** @param ownsChannel close the channel with the stream (client), or not (server) */
    MessageStream(MessageChannel channel, boolean ownsChannel) {
        this(channel, ownsChannel ? channel : null);
    }

    /** @param release closed once with the stream, or null */
    MessageStream(MessageChannel channel, Closeable release) {
        this.channel = channel;
        this.release = release;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!holding) {
            int n = channel.receive();
            if (stopped) {
                channel.release();
                return -1;
            }
            holding = true;
            pendingOffset = 0;
            pendingLength = n;
        }
        int take = Math.min(dst.remaining(), pendingLength - pendingOffset);
        dst.put(dst.position(), channel.received(), pendingOffset, take);
        dst.position(dst.position() + take);
        pendingOffset += take;
        if (pendingOffset == pendingLength) {
            holding = false;
            channel.release();
        }
        return take;
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        int m = channel.maxMessage();
        int offset = src.position();
        int limit = src.limit();
        do {
            int n = Math.min(m, limit - offset);
            channel.send(src, offset, n);
            offset += n;
        } while (offset < limit);
        src.position(limit);
    }

    /** Makes the next or current read end the stream (server stop). */
    void stop() {
        stopped = true;
    }

    @Override
    public void close() throws IOException {
        if (holding) {
            holding = false;
            channel.release();
        }
        if (release != null) {
            Closeable once = release;
            release = null;
            once.close();
        }
    }
}
