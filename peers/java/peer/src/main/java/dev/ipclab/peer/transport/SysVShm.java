package dev.ipclab.peer.transport;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.SysVSemaphoreSet;
import dev.ipclab.linuxipc.SysVSharedMemory;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * sysv-shm: one System V segment with a one-message slot per direction and one set of four
 * semaphores (EMPTY and FULL per direction), same key. Send: P(EMPTY), write length and bytes,
 * V(FULL). Receive: P(FULL), read, V(EMPTY). The client waits with semtimedop (--io-timeout).
 */
public final class SysVShm implements MessageChannel {
    static final int M = 1 << 20;
    static final long SLOT = 8 + M;
    public static final long SIZE = 2 * SLOT;

    private final SysVSharedMemory shm;
    private final SysVSemaphoreSet sems;
    private final boolean server;
    private final long timeoutNanos;
    private final MemorySegment memory;
    private final long sendSlot;
    private final long receiveSlot;
    private final int sendEmpty;
    private final int sendFull;
    private final int receiveEmpty;
    private final int receiveFull;
    private final ByteBuffer sendBytes;
    private final ByteBuffer receiveBytes;

    private SysVShm(SysVSharedMemory shm, SysVSemaphoreSet sems, boolean server, long timeoutNanos)
            throws IOException {
        if (shm.size() < SIZE) {
            throw new IOException("segment of " + shm.size() + " bytes, expected " + SIZE);
        }
        this.shm = shm;
        this.sems = sems;
        this.server = server;
        this.timeoutNanos = timeoutNanos;
        this.memory = shm.attach(false);
        int sendDirection = server ? 2 : 1;
        int receiveDirection = server ? 1 : 2;
        this.sendSlot = (sendDirection - 1) * SLOT;
        this.receiveSlot = (receiveDirection - 1) * SLOT;
        this.sendEmpty = 2 * (sendDirection - 1);
        this.sendFull = sendEmpty + 1;
        this.receiveEmpty = 2 * (receiveDirection - 1);
        this.receiveFull = receiveEmpty + 1;
        this.sendBytes = memory.asSlice(sendSlot + 8, M).asByteBuffer();
        this.receiveBytes = memory.asSlice(receiveSlot + 8, M).asByteBuffer();
    }

    public static StreamListener listen(String endpoint) throws IOException {
        SysVKeys.checkServerEndpoint(endpoint);
        SysVShm channel = SysVKeys.createTagged(key -> {
            SysVSharedMemory shm = SysVSharedMemory.create(key, SIZE, 0600);
            SysVSemaphoreSet sems;
            try {
                sems = SysVSemaphoreSet.create(key, 4, 0600);
            } catch (IOException e) {
                shm.remove();
                throw e;
            }
            try {
                sems.setAll(1, 0, 1, 0);
                return new SysVShm(shm, sems, true, 0);
            } catch (IOException | RuntimeException e) {
                shm.detach();
                shm.remove();
                sems.remove();
                throw e;
            }
        });
        return new MessageListener(SysVKeys.endpoint(channel.shm.key()), channel);
    }

    public static ClientLink connect(String endpoint, long timeoutNanos) throws IOException {
        int key = SysVKeys.parse(endpoint);
        SysVSharedMemory shm = SysVSharedMemory.open(key);
        SysVSemaphoreSet sems = SysVSemaphoreSet.open(key, 4);
        return new StreamLink(new MessageStream(new SysVShm(shm, sems, false, timeoutNanos), true));
    }

    @Override
    public int maxMessage() {
        return M;
    }

    @Override
    public void send(ByteBuffer src, int offset, int length) throws IOException {
        p(sendEmpty);
        memory.set(JAVA_LONG_UNALIGNED, sendSlot, length);
        sendBytes.put(0, src, offset, length);
        sems.release(sendFull);
    }

    @Override
    public int receive() throws IOException {
        p(receiveFull);
        long n = memory.get(JAVA_LONG_UNALIGNED, receiveSlot);
        if (n < 0 || n > M) {
            sems.release(receiveEmpty);
            throw new IOException("shared memory slot holds a bad length " + n);
        }
        return (int) n;
    }

    private void p(int sem) throws IOException {
        if (timeoutNanos <= 0) {
            sems.acquire(sem);
        } else if (!sems.op(sem, -1, timeoutNanos)) {
            throw new ReceiveTimeoutException("no semaphore post within --io-timeout ("
                    + timeoutNanos / 1e9 + " s)");
        }
    }

    @Override
    public ByteBuffer received() {
        return receiveBytes;
    }

    @Override
    public void release() throws IOException {
        sems.release(receiveEmpty);
    }

    /** An empty message posted into the server's own receiving slot ends its wait. */
    @Override
    public void wake() {
        try {
            memory.set(JAVA_LONG_UNALIGNED, receiveSlot, 0L);
            sems.release(receiveFull);
        } catch (LinuxIpcException | RuntimeException e) {
            // Gone: the process is ending.
        }
    }

    /**
     * Client: detaches. Server: removes both objects but keeps its attachment (the process's end
     * detaches): a serving thread may still be copying, and unmapping under it would crash the
     * JVM. IPC_RMID frees the key at once and the memory when the last process detaches.
     * Called once.
     */
    @Override
    public void close() throws IOException {
        if (server) {
            MessageChannel.removeAll(shm::remove, sems::remove);
        } else {
            shm.detach();
        }
    }
}
