package dev.ipclab.peer.transport;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ipclab.linuxipc.Futex;
import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixSharedMemory;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * shm, shm-spin, shm-futex (PROTOCOL.md section 4.3): one POSIX shared memory object
 * {@code /ipclab-<pid>-shm} with a one-slot hand-off per direction, counted by {@code seq}
 * (published) and {@code ack} (consumed), no system call on the fast path. Each side writes only
 * its own 64-byte line (its seq, its ack of the other direction, the length, and messages of at
 * most 48 bytes inline), so a small hand-off moves one cache line. How a side waits is
 * the mechanism: spin (with {@link Thread#onSpinWait()}), futex at once, or spin for --spin-us and
 * then futex (hybrid). Counters are accessed through a little-endian int VarHandle with
 * acquire/release ordering; {@code sleepers} with atomic getAndAdd.
 */
public final class Shm implements MessageChannel {
    static final int M = 1 << 20;
    public static final long SIZE = 4096 + 2L * M;
    public static final String SUFFIX = "-shm";

    /** The sender of direction d writes the line at LINE[d]; its fields at LINE[d] + SEQ etc. */
    private static final long[] LINE = {0, 0, 64};
    /** Direction d's slot, for messages longer than INLINE. */
    private static final long[] SLOT = {0, 4096, 4096 + M};
    /** Direction d's sleepers (waiters on seq_d or ack_d), on a line of their own. */
    private static final long[] SLEEPERS = {0, 128, 192};
    private static final long SEQ = 0;
    /** The line owner's ack of the direction it receives. */
    private static final long ACK = 4;
    private static final long LENGTH = 8;
    private static final long MESSAGE = 16;
    /** Messages up to this size travel in the sender's line, not the slot. */
    static final int INLINE = 48;

    private static final VarHandle INT =
            JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    /** The longest single server sleep, so that a stop request is noticed even if raced. */
    private static final long SERVER_NAP_NANOS = 100_000_000L;

    public enum Wait { SPIN, FUTEX, HYBRID }

    private final PosixSharedMemory shm;
    private final String name;
    private final boolean server;
    private final Wait wait;
    private final long spinNanos;
    /** Client: --io-timeout for every wait; server: 0 (waits until stopped). */
    private final long timeoutNanos;
    private final MemorySegment memory;
    /** Our line (written only here) and the peer's (only read here). */
    private final long ownLine;
    private final long peerLine;
    private final long sendSleepers;
    private final long receiveSleepers;
    private final ByteBuffer sendSlot;
    private final ByteBuffer receiveSlot;
    private final ByteBuffer sendInline;
    private final ByteBuffer receiveInline;
    /** Where the message being held is: receiveInline or receiveSlot. */
    private ByteBuffer received;
    private volatile boolean stopped;
    /** The ack value to store on release, or -1 after a stop (nothing to release). */
    private int pendingAck;
    private boolean holding;

    /** Package-private for the layout test, which builds both sides on one object. */
    Shm(PosixSharedMemory shm, boolean server, Wait wait, long spinNanos,
            long timeoutNanos) {
        this.shm = shm;
        this.name = shm.name();
        this.server = server;
        this.wait = wait;
        this.spinNanos = spinNanos;
        this.timeoutNanos = timeoutNanos;
        this.memory = shm.memory();
        int sendDirection = server ? 2 : 1;
        int receiveDirection = server ? 1 : 2;
        this.ownLine = LINE[sendDirection];
        this.peerLine = LINE[receiveDirection];
        this.sendSleepers = SLEEPERS[sendDirection];
        this.receiveSleepers = SLEEPERS[receiveDirection];
        this.sendSlot = memory.asSlice(SLOT[sendDirection], M).asByteBuffer();
        this.receiveSlot = memory.asSlice(SLOT[receiveDirection], M).asByteBuffer();
        this.sendInline = memory.asSlice(ownLine + MESSAGE, INLINE).asByteBuffer();
        this.receiveInline = memory.asSlice(peerLine + MESSAGE, INLINE).asByteBuffer();
        this.received = receiveSlot;
    }

    public static StreamListener listen(Wait wait, String endpoint, long spinNanos)
            throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        String prefix = "/ipclab-" + ProcessHandle.current().pid();
        String name = prefix + SUFFIX;
        // ftruncate zero-fills: every counter starts at 0.
        PosixSharedMemory shm = PosixSharedMemory.create(name, SIZE, 0600);
        try {
            return new MessageListener(PosixMq.PREFIX + prefix,
                    new Shm(shm, true, wait, spinNanos, 0));
        } catch (RuntimeException e) {
            try {
                PosixSharedMemory.unlink(name);
            } catch (LinuxIpcException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    public static ClientLink connect(Wait wait, String endpoint, long timeoutNanos,
            long spinNanos) throws IOException {
        if (!endpoint.startsWith(PosixMq.PREFIX + "/")) {
            throw new IllegalArgumentException("endpoint must be posix:/NAME, got '" + endpoint + "'");
        }
        String name = endpoint.substring(PosixMq.PREFIX.length()) + SUFFIX;
        PosixSharedMemory shm = PosixSharedMemory.open(name, SIZE, false);
        return new StreamLink(new MessageStream(
                new Shm(shm, false, wait, spinNanos, timeoutNanos), true));
    }

    @Override
    public int maxMessage() {
        return M;
    }

    @Override
    public void send(ByteBuffer src, int offset, int length) throws IOException {
        long seqAt = ownLine + SEQ;
        int seq = (int) INT.get(memory, seqAt);
        // The slot is free when the receiver has consumed everything published; its ack of our
        // direction is in its line.
        if (!awaitValue(peerLine + ACK, sendSleepers, seq, true)) {
            throw new IOException("server stopping");
        }
        (length <= INLINE ? sendInline : sendSlot).put(0, src, offset, length);
        INT.set(memory, ownLine + LENGTH, length);
        INT.setRelease(memory, seqAt, seq + 1);
        wake(seqAt, sendSleepers);
    }

    @Override
    public int receive() throws IOException {
        int ack = (int) INT.get(memory, ownLine + ACK);
        if (!awaitValue(peerLine + SEQ, receiveSleepers, ack, false)) {
            holding = false;
            return 0;
        }
        int n = (int) INT.get(memory, peerLine + LENGTH);
        if (n < 0 || n > M) {
            release(ack);
            throw new IOException("shared memory slot holds a bad length " + Integer.toUnsignedString(n));
        }
        holding = true;
        pendingAck = ack + 1;
        received = n <= INLINE ? receiveInline : receiveSlot;
        return n;
    }

    @Override
    public ByteBuffer received() {
        return received;
    }

    @Override
    public void release() {
        if (holding) {
            holding = false;
            release(pendingAck - 1);
        }
    }

    private void release(int ack) {
        long ackAt = ownLine + ACK;
        INT.setRelease(memory, ackAt, ack + 1);
        wake(ackAt, receiveSleepers);
    }

    /**
     * Waits until the word equals {@code target} ({@code equal}) or differs from it.
     *
     * @return false if the server was stopped meanwhile
     * @throws ReceiveTimeoutException when a client waited longer than --io-timeout
     */
    private boolean awaitValue(long at, long sleepersAt, int target, boolean equal)
            throws IOException {
        int v = (int) INT.getAcquire(memory, at);
        if ((v == target) == equal) {
            return true;
        }
        long begin = System.nanoTime();
        if (wait == Wait.SPIN || (wait == Wait.HYBRID && spinNanos > 0)) {
            long spinLimit = wait == Wait.SPIN ? timeoutNanos : spinNanos;
            int checks = 0;
            while (true) {
                Thread.onSpinWait();
                v = (int) INT.getAcquire(memory, at);
                if ((v == target) == equal) {
                    return true;
                }
                if ((++checks & 15) == 0) {
                    if (stopped) {
                        return false;
                    }
                    if (spinLimit > 0 && System.nanoTime() - begin > spinLimit) {
                        break;
                    }
                }
            }
            if (wait == Wait.SPIN) {
                throw timeout();
            }
        }
        return sleep(at, sleepersAt, target, equal, begin);
    }

    private boolean sleep(long at, long sleepersAt, int target, boolean equal, long begin)
            throws IOException {
        INT.getAndAdd(memory, sleepersAt, 1);
        try {
            while (true) {
                int v = (int) INT.getAcquire(memory, at);
                if ((v == target) == equal) {
                    return true;
                }
                if (stopped) {
                    return false;
                }
                long nap;
                if (timeoutNanos > 0) {
                    nap = timeoutNanos - (System.nanoTime() - begin);
                    if (nap <= 0) {
                        throw timeout();
                    }
                } else {
                    nap = SERVER_NAP_NANOS;
                }
                Futex.await(memory, at, v, nap);
            }
        } finally {
            INT.getAndAdd(memory, sleepersAt, -1);
        }
    }

    private void wake(long at, long sleepersAt) {
        if (wait == Wait.SPIN) {
            return;
        }
        VarHandle.fullFence();
        if ((int) INT.get(memory, sleepersAt) != 0) {
            try {
                Futex.wake(memory, at, Integer.MAX_VALUE);
            } catch (LinuxIpcException e) {
                throw new IllegalStateException("futex wake failed: " + e.getMessage(), e);
            }
        }
    }

    private ReceiveTimeoutException timeout() {
        return new ReceiveTimeoutException("no hand-off on " + name + " within --io-timeout ("
                + timeoutNanos / 1e9 + " s)");
    }

    /** Makes a server's wait return within a nap (the stream then ends). */
    @Override
    public void wake() {
        stopped = true;
        if (wait != Wait.SPIN) {
            try {
                Futex.wake(memory, peerLine + SEQ, Integer.MAX_VALUE);
                Futex.wake(memory, peerLine + ACK, Integer.MAX_VALUE);
            } catch (LinuxIpcException | RuntimeException e) {
                // The waiter notices the flag after its nap.
            }
        }
    }

    /**
     * Server: unlinks the name at once; the mapping stays (the process's end unmaps it): a
     * serving thread may still be copying, and unmapping under it would crash the JVM. Client:
     * unmaps. Called once.
     */
    @Override
    public void close() throws IOException {
        if (server) {
            MessageChannel.removeAll(() -> PosixSharedMemory.unlink(name));
        } else {
            shm.close();
        }
    }
}
