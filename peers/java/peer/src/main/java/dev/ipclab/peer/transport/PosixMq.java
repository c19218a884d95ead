package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import java.io.IOException;
import java.lang.foreign.Arena;

/**
 * posix-mq: two POSIX queues, {@code /ipclab-<pid>-1} (client to server) and {@code -2} (back),
 * mq_maxmsg 10, mq_msgsize 8192. The client's receives are mq_timedreceive with --io-timeout.
 */
public final class PosixMq extends QueueChannel {
    static final int MAX_MESSAGES = 10;
    static final String PREFIX = "posix:";

    /** Final but for a short client, which opens both queues per round trip. */
    private PosixMessageQueue out;
    private PosixMessageQueue in;
    private final PosixMessageQueue wakeHandle;
    private final String name;
    private final boolean server;
    private final long timeoutNanos;

    private PosixMq(String name, PosixMessageQueue out, PosixMessageQueue in, boolean server,
            long timeoutNanos) {
        super((arena, textLength) -> arena.allocate(textLength, 8), 0);
        this.name = name;
        this.out = out;
        this.in = in;
        this.wakeHandle = server ? in : null;
        this.server = server;
        this.timeoutNanos = timeoutNanos;
    }

    public static StreamListener listen(String endpoint) throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        String name = "/ipclab-" + ProcessHandle.current().pid();
        PosixMessageQueue toServer = PosixMessageQueue.create(name + "-1", MAX_MESSAGES, M, 0600);
        PosixMessageQueue toClient;
        try {
            toClient = PosixMessageQueue.create(name + "-2", MAX_MESSAGES, M, 0600);
        } catch (IOException e) {
            toServer.close();
            PosixMessageQueue.unlink(name + "-1");
            throw e;
        }
        return new MessageListener(PREFIX + name, new PosixMq(name, toClient, toServer, true, 0));
    }

    public static ClientLink connect(String endpoint, long timeoutNanos) throws IOException {
        PosixMq channel = new PosixMq(name(endpoint), null, null, false, timeoutNanos);
        try {
            channel.openQueues();
        } catch (IOException | RuntimeException e) {
            channel.arena.close();
            throw e;
        }
        return new StreamLink(new MessageStream(channel, true));
    }

    /**
     * short (section 11.2): one set of buffers; each round trip opens both queues and closes
     * them when its link closes ({@code mq_open} and {@code mq_close} per message).
     */
    public static Dial dialer(String endpoint, long timeoutNanos) {
        PosixMq channel = new PosixMq(name(endpoint), null, null, false, timeoutNanos);
        return new Dial() {
            @Override
            public ClientLink dial() throws IOException {
                channel.openQueues();
                return new StreamLink(new MessageStream(channel, channel::closeQueues));
            }

            @Override
            public void close() {
                channel.arena.close();
            }
        };
    }

    static String name(String endpoint) {
        if (!endpoint.startsWith(PREFIX + "/")) {
            throw new IllegalArgumentException("endpoint must be posix:/NAME, got '" + endpoint + "'");
        }
        return endpoint.substring(PREFIX.length());
    }

    /** The client's opens: direction 1 for writing, direction 2 for reading. */
    private void openQueues() throws IOException {
        out = PosixMessageQueue.open(name + "-1", PosixMessageQueue.O_WRONLY);
        try {
            in = PosixMessageQueue.open(name + "-2", PosixMessageQueue.O_RDONLY);
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private void closeQueues() throws IOException {
        ChannelConnection.closeAll(out::close, in::close);
    }

    /** @throws IllegalArgumentException unless auto or posix:/NAME */
    public static void checkEndpoint(String endpoint) {
        if (!endpoint.equals("auto") && !(endpoint.startsWith(PREFIX + "/")
                && endpoint.length() > PREFIX.length() + 1
                && endpoint.indexOf('/', PREFIX.length() + 1) < 0)) {
            throw new IllegalArgumentException("endpoint must be auto (serve) or posix:/NAME, got '"
                    + endpoint + "'");
        }
    }

    @Override
    void send(int length) throws IOException {
        sendTo(out, length);
    }

    @Override
    public int receive() throws IOException {
        return receiveWithin(in, name + "-2", timeoutNanos);
    }

    /** An empty message on the server's own receiving queue ends its blocked mq_receive. */
    @Override
    public void wake() {
        try (Arena a = Arena.ofConfined()) {
            wakeHandle.send(a.allocate(1), 0, 0);
        } catch (LinuxIpcException | RuntimeException e) {
            // Full or closed: the receiver is awake anyway, or the process is ending.
        }
    }

    /** Server: removes both queues; client: closes its descriptors. Called once. */
    @Override
    public void close() throws IOException {
        try {
            out.close();
            in.close();
        } finally {
            if (server) {
                MessageChannel.removeAll(() -> PosixMessageQueue.unlink(name + "-1"),
                        () -> PosixMessageQueue.unlink(name + "-2"));
            } else {
                arena.close();
            }
        }
    }
}
