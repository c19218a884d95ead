package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * load over posix-mq (PROTOCOL.md 11.5.5): the server's request queue {@code /ipclab-<pid>-1}
 * (as rr's), shared by every connection; connection c's reply queue {@code /ipclab-<pid>-r<c>}
 * is made by the client, read-only, sized for one RESPONSE, and unlinked by it. The server opens
 * a reply queue non-blocking the first time it answers there ({@link ReplyQueues}): a client
 * that does not read must not hold up the others' answers.
 */
public final class PosixMqLoad implements LoadQueue {
    private static final int HEADER = 24;
    private static final int END_ACK_PAYLOAD = 8;
    /**
     * An answer longer than its reply queue (more than mq_maxmsg messages) is read while it is
     * sent; a continuation message waits this long for room before the rest is dropped
     * (PROTOCOL.md 11.5.5: up to 10 s, as the C++ and Python servers wait).
     */
    private static final long CONTINUATION_WAIT_NANOS = 10_000_000_000L;
    private static final long RETRY_NANOS = 20_000L;

    /** {@code <prefix>-1}; the prefix, READY's endpoint, is the reply queues' too. */
    private final PosixMessageQueue requests;
    private final ReplyQueues replies;

    private PosixMqLoad(String prefix, PosixMessageQueue requests) {
        this.requests = requests;
        this.replies = new ReplyQueues(prefix);
    }

    public static LoadQueue listen(String endpoint) throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        String name = "/ipclab-" + ProcessHandle.current().pid();
        return new PosixMqLoad(name, PosixMessageQueue.create(name + "-1", PosixMq.MAX_MESSAGES,
                QueueChannel.M, 0600));
    }

    /** Connection c's reply queue: the server's name prefix (from READY's endpoint), r, c. */
    static String replyName(String prefix, int connection) {
        return prefix + "-r" + connection;
    }

    /**
     * Connection c of a load client: creates its reply queue (before T0), then opens the request
     * queue; a failure unlinks what it made. mq_msgsize fits a whole RESPONSE (at least END_ACK)
     * up to M; mq_maxmsg holds one RESPONSE, at most 10, so 1024 connections stay within
     * RLIMIT_MSGQUEUE.
     */
    public static ClientLink connect(String endpoint, int connection, int responseSize,
            long timeoutNanos) throws IOException {
        String prefix = PosixMq.name(endpoint);
        String replyName = replyName(prefix, connection);
        long frame = HEADER + (long) responseSize;
        int messageSize = (int) Math.min(QueueChannel.M,
                HEADER + Math.max(responseSize, END_ACK_PAYLOAD));
        long messages = Math.min(PosixMq.MAX_MESSAGES, Math.ceilDiv(frame, messageSize));
        PosixMessageQueue replies = PosixMessageQueue.create(replyName, PosixMessageQueue.O_RDONLY,
                messages, messageSize, 0600);
        try {
            PosixMessageQueue requests = PosixMessageQueue.open(prefix + "-1",
                    PosixMessageQueue.O_WRONLY);
            return new StreamLink(new MessageStream(
                    new ClientChannel(requests, replies, timeoutNanos), true));
        } catch (IOException | RuntimeException e) {
            try {
                ChannelConnection.closeAll(replies::close, () -> ReplyQueues.unlink(replyName));
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    @Override
    public String endpoint() {
        return PosixMq.PREFIX + replies.prefix();
    }

    @Override
    public Receiver receiver() {
        return new ServerChannel();
    }

    /** Empty messages through a non-blocking descriptor: a full queue has no one asleep on it. */
    @Override
    public void wake(int n) {
        try (PosixMessageQueue waker = PosixMessageQueue.open(requests.name(),
                PosixMessageQueue.O_WRONLY | PosixMessageQueue.O_NONBLOCK);
                Arena a = Arena.ofConfined()) {
            for (int i = 0; i < n; i++) {
                waker.send(a.allocate(1), 0, 0);
            }
        } catch (LinuxIpcException | RuntimeException e) {
            // Full or gone: the receivers are awake anyway, or the process is ending.
        }
    }

    /** The request queue, then every reply queue this server opened (closed and unlinked). */
    @Override
    public void close() throws IOException {
        try {
            ChannelConnection.closeAll(requests::close, replies::close);
        } finally {
            MessageChannel.removeAll(() -> PosixMessageQueue.unlink(requests.name()));
        }
    }

    /** A server thread's buffers (kept until the process ends: a call may still hold them). */
    private final class ServerChannel extends QueueChannel implements Receiver {
        private PosixMessageQueue target;
        private boolean first;

        ServerChannel() {
            super((arena, textLength) -> arena.allocate(textLength, 8), 0);
        }

        @Override
        public int receive() throws IOException {
            return receiveFrom(requests, 0);
        }

        /**
         * A queue full before the answer's first message may be one a descriptor was kept for
         * since an earlier client of this number ended without END (a timeout): nobody reads it
         * any more, so the name's queue is opened again for one more try before the drop.
         */
        @Override
        public void reply(int connection, ByteBuffer frame) throws IOException {
            try {
                send(replies.get(connection), frame);
            } catch (FullAtStart stale) {
                replies.forget(connection);
                try {
                    send(replies.get(connection), frame);
                } catch (FullAtStart full) {
                    throw new ReplyDroppedException("answer to " + full.getMessage()
                            + " dropped: the queue is full", full);
                }
            }
        }

        private void send(ReplyQueues.Reply reply, ByteBuffer frame) throws IOException {
            target = reply.queue();
            first = true;
            sendFrame(frame, reply.messageSize());
        }

        @Override
        public void ended(int connection) {
            replies.forget(connection);
        }

        /**
         * A full queue: before the answer's first message, nothing is sent ({@link FullAtStart});
         * a later message waits a little for the reader, who is reading this very answer.
         */
        @Override
        void send(int length) throws IOException {
            boolean starting = first;
            first = false;
            long deadline = System.nanoTime() + CONTINUATION_WAIT_NANOS;
            while (true) {
                try {
                    sendTo(target, length);
                    return;
                } catch (LinuxIpcException e) {
                    boolean full = e.errno() == LinuxIpcException.EAGAIN;
                    if (full && starting) {
                        throw new FullAtStart(target.name());
                    }
                    if (!full || System.nanoTime() - deadline > 0) {
                        throw new ReplyDroppedException("answer to " + target.name()
                                + " dropped: " + (full ? "the queue stayed full" : e.getMessage()),
                                e);
                    }
                    LockSupport.parkNanos(RETRY_NANOS);
                }
            }
        }

        @Override
        public void close() {}
    }

    /** A reply queue was full before an answer's first message: nothing of it was sent. */
    private static final class FullAtStart extends IOException {
        private static final long serialVersionUID = 1L;

        FullAtStart(String queue) {
            super(queue);
        }
    }

    /** A client connection's buffers and descriptors; closing unlinks its reply queue. */
    private static final class ClientChannel extends QueueChannel {
        private final PosixMessageQueue requests;
        private final PosixMessageQueue replies;
        private final long timeoutNanos;

        ClientChannel(PosixMessageQueue requests, PosixMessageQueue replies, long timeoutNanos) {
            super((arena, textLength) -> arena.allocate(textLength, 8), 0);
            this.requests = requests;
            this.replies = replies;
            this.timeoutNanos = timeoutNanos;
        }

        @Override
        void send(int length) throws IOException {
            sendTo(requests, length);
        }

        @Override
        public int receive() throws IOException {
            return receiveWithin(replies, replies.name(), timeoutNanos);
        }

        @Override
        public void close() throws IOException {
            try {
                ChannelConnection.closeAll(requests::close, replies::close,
                        () -> ReplyQueues.unlink(replies.name()));
            } finally {
                arena.close();
            }
        }
    }
}
