package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.SysVMessageQueue;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;

/**
 * sysv-mq: one System V message queue, mtype = direction (1 client to server, 2 back), M = 8192.
 * Blocking msgsnd and msgrcv; a removed queue (dead server) fails a blocked client with EIDRM.
 */
public final class SysVMq extends QueueChannel {
    private static final long TO_SERVER = 1;
    private static final long TO_CLIENT = 2;

    /**
     * The same queue but for load's client; final but for a short client, which opens the queue
     * again per round trip.
     */
    private SysVMessageQueue out;
    private SysVMessageQueue in;
    private final long sendType;
    private final long receiveType;
    private final boolean server;

    /** rr's: one queue both ways, the direction in mtype. */
    private SysVMq(SysVMessageQueue queue, boolean server) {
        this(queue, server ? TO_CLIENT : TO_SERVER, queue, server ? TO_SERVER : TO_CLIENT, server);
    }

    private SysVMq(SysVMessageQueue out, long sendType, SysVMessageQueue in, long receiveType,
            boolean server) {
        super(SysVMessageQueue::allocateMessage, SysVMessageQueue.TEXT_OFFSET);
        this.out = out;
        this.sendType = sendType;
        this.in = in;
        this.receiveType = receiveType;
        this.server = server;
    }

    public static StreamListener listen(String endpoint) throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        SysVMessageQueue queue = SysVKeys.createTagged(key -> SysVMessageQueue.create(key, 0600));
        return new MessageListener(SysVKeys.endpoint(queue.key()), new SysVMq(queue, true));
    }

    public static ClientLink connect(String endpoint) throws IOException {
        SysVMessageQueue queue = SysVMessageQueue.open(SysVKeys.parse(endpoint));
        return connect(queue, TO_SERVER, queue, TO_CLIENT);
    }

    /**
     * A client link sending messages of sendType to out and receiving those of receiveType from
     * in: rr's one queue, or load's request and reply queues (11.5.5). The buffers go with it.
     */
    static ClientLink connect(SysVMessageQueue out, long sendType, SysVMessageQueue in,
            long receiveType) {
        return new StreamLink(new MessageStream(
                new SysVMq(out, sendType, in, receiveType, false), true));
    }

    /**
     * short (section 11.2): one set of buffers; each round trip opens the queue with
     * {@code msgget(key, 0)} (System V has no close).
     */
    public static Dial dialer(String endpoint) throws IOException {
        int key = SysVKeys.parse(endpoint);
        SysVMq channel = new SysVMq(SysVMessageQueue.open(key), false);
        return new Dial() {
            @Override
            public ClientLink dial() throws IOException {
                channel.out = SysVMessageQueue.open(key);
                channel.in = channel.out;
                return new StreamLink(new MessageStream(channel, (Closeable) null));
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    @Override
    void send(int length) throws IOException {
        sendTo(out, sendType, length);
    }

    @Override
    public int receive() throws IOException {
        return receiveFrom(in, receiveType);
    }

    /** An empty message of the server's own receiving type ends its blocked msgrcv. */
    @Override
    public void wake() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            in.send(SysVMessageQueue.allocateMessage(a, 0), receiveType, 0, 04000);
        } catch (LinuxIpcException e) {
            // Full or gone: the receiver is awake anyway, or the process is ending.
        }
    }

    /**
     * Server: removes the queue. The native buffers go with the process (a server) or the link
     * (a client, whose threads are done with them by now); a shared arena cannot close under a
     * blocked call. Called once.
     */
    @Override
    public void close() throws IOException {
        if (server) {
            MessageChannel.removeAll(in::remove);
        } else {
            arena.close();
        }
    }
}
