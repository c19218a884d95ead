package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.SysVMessageQueue;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;

/**
 * load over sysv-mq (PROTOCOL.md 11.5.5): a request queue (key K, mtype 1, shared by every
 * connection) and a reply queue (key K | 0x8000) where connection c's answers have mtype 2 + c.
 * Two queues, because requests filling the one queue of 4.1 would leave no room for answers.
 * Blocking msgsnd and msgrcv, as rr's; removing the queues wakes whoever is blocked (EIDRM).
 */
public final class SysVMqLoad implements LoadQueue {
    /** K | REPLY_KEY_BIT is the reply queue's key, so r stays below it. */
    static final int REPLY_KEY_BIT = 0x8000;
    static final long REQUEST_TYPE = 1;
    static final long FIRST_REPLY_TYPE = 2;
    private static final int IPC_NOWAIT = 04000;

    private final SysVMessageQueue requests;
    private final SysVMessageQueue replies;

    private SysVMqLoad(SysVMessageQueue requests, SysVMessageQueue replies) {
        this.requests = requests;
        this.replies = replies;
    }

    public static LoadQueue listen(String endpoint) throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        return SysVKeys.createTagged(SysVMqLoad::create, REPLY_KEY_BIT);
    }

    /** Both queues or neither: an EEXIST of the reply key removes the request queue first. */
    private static SysVMqLoad create(int key) throws IOException {
        SysVMessageQueue requests = SysVMessageQueue.create(key, 0600);
        try {
            return new SysVMqLoad(requests, SysVMessageQueue.create(key | REPLY_KEY_BIT, 0600));
        } catch (IOException | RuntimeException e) {
            try {
                requests.remove();
            } catch (LinuxIpcException removal) {
                e.addSuppressed(removal);
            }
            throw e;
        }
    }

    /**
     * Connection c of a load client: REQUEST and END to the request queue, answers of 2 + c.
     * The reply queue is the server's (its size is the kernel's) and msgrcv has no timed form,
     * so responseSize and timeoutNanos are not needed (11.5.5: a lost answer waits for EIDRM).
     */
    public static ClientLink connect(String endpoint, int connection, int responseSize,
            long timeoutNanos) throws IOException {
        int[] keys = SysVKeys.parsePair(endpoint);
        SysVMessageQueue requests = SysVMessageQueue.open(keys[0]);
        SysVMessageQueue replies = SysVMessageQueue.open(keys[1]);
        return SysVMq.connect(requests, REQUEST_TYPE, replies, FIRST_REPLY_TYPE + connection);
    }

    @Override
    public String endpoint() {
        return SysVKeys.endpoint(requests.key(), replies.key());
    }

    @Override
    public Receiver receiver() {
        return new ServerChannel();
    }

    /** Empty messages of the request type; IPC_NOWAIT: a full queue has no one asleep on it. */
    @Override
    public void wake(int n) {
        try (Arena a = Arena.ofConfined()) {
            for (int i = 0; i < n; i++) {
                requests.send(SysVMessageQueue.allocateMessage(a, 0), REQUEST_TYPE, 0, IPC_NOWAIT);
            }
        } catch (LinuxIpcException e) {
            // Full or gone: the receivers are awake anyway, or the process is ending.
        }
    }

    @Override
    public void close() throws IOException {
        MessageChannel.removeAll(requests::remove, replies::remove);
    }

    /** A server thread's buffers (kept until the process ends: a call may still hold them). */
    private final class ServerChannel extends QueueChannel implements Receiver {
        private long replyType;

        ServerChannel() {
            super(SysVMessageQueue::allocateMessage, SysVMessageQueue.TEXT_OFFSET);
        }

        @Override
        public int receive() throws IOException {
            return receiveFrom(requests, REQUEST_TYPE);
        }

        @Override
        public void reply(int connection, ByteBuffer frame) throws IOException {
            replyType = FIRST_REPLY_TYPE + connection;
            sendFrame(frame, M);
        }

        @Override
        void send(int length) throws IOException {
            sendTo(replies, replyType, length);
        }

        @Override
        public void close() {}
    }
}
