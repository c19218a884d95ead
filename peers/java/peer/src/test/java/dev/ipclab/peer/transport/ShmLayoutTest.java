package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ipclab.linuxipc.PosixSharedMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** shm's shared memory layout (PROTOCOL.md section 4.3), written by two channels over one object. */
class ShmLayoutTest {
    private static final long TIMEOUT = 300_000_000L;

    /**
     * The offsets of the contract's table, read back raw: each side writes only its own line,
     * messages of at most 48 bytes travel in it, longer ones in the slots.
     */
    @Test
    void layoutHasOneLinePerSideAndInlineMessages() throws Throwable {
        String name = "/ipclab-" + ProcessHandle.current().pid() + "-l"
                + ThreadLocalRandom.current().nextInt(1 << 20) + Shm.SUFFIX;
        try (PosixSharedMemory serverSide = PosixSharedMemory.create(name, Shm.SIZE, 0600);
                PosixSharedMemory clientSide = PosixSharedMemory.open(name, Shm.SIZE, false)) {
            try {
                MemorySegment raw = serverSide.memory();
                Shm server = new Shm(serverSide, true, Shm.Wait.SPIN, 0, 0);
                Shm client = new Shm(clientSide, false, Shm.Wait.SPIN, 0, TIMEOUT);
                byte[] request = new byte[48];
                byte[] response = new byte[30];
                for (int i = 0; i < 48; i++) {
                    request[i] = (byte) (i + 1);
                }
                for (int i = 0; i < 30; i++) {
                    response[i] = (byte) (100 + i);
                }
                client.send(ByteBuffer.wrap(request), 0, 48);
                assertArrayEquals(new int[] {1, 0, 48, 0}, words(raw, 0, 4));
                assertArrayEquals(request, bytes(raw, 16, 48));
                assertArrayEquals(new int[] {0, 0, 0, 0}, words(raw, 64, 4));
                assertEquals(48, server.receive());
                assertArrayEquals(request, bytes(server.received(), 48));
                server.release();
                assertArrayEquals(new int[] {0, 1, 0, 0}, words(raw, 64, 4)); // ack1
                server.send(ByteBuffer.wrap(response), 0, 30);
                assertArrayEquals(new int[] {1, 1, 30, 0}, words(raw, 64, 4));
                assertArrayEquals(response, bytes(raw, 80, 30));
                assertEquals(30, client.receive());
                assertArrayEquals(response, bytes(client.received(), 30));
                client.release();
                assertArrayEquals(new int[] {1, 1, 48, 0}, words(raw, 0, 4)); // ack2
                // 49 bytes: the slot; the line keeps only the counters and the length.
                byte[] longer = new byte[49];
                for (int i = 0; i < 49; i++) {
                    longer[i] = (byte) i;
                }
                client.send(ByteBuffer.wrap(longer), 0, 49);
                assertArrayEquals(new int[] {2, 1, 49}, words(raw, 0, 3));
                assertArrayEquals(longer, bytes(raw, 4096, 49));
                assertArrayEquals(request, bytes(raw, 16, 48));
                assertEquals(49, server.receive());
                assertArrayEquals(longer, bytes(server.received(), 49));
                server.release();
                server.send(ByteBuffer.wrap(longer), 0, 49);
                assertArrayEquals(new int[] {2, 2, 49}, words(raw, 64, 3));
                assertArrayEquals(longer, bytes(raw, 4096 + (1 << 20), 49));
                assertEquals(49, client.receive());
                client.release();
                assertArrayEquals(new int[] {0}, words(raw, 128, 1)); // sleepers: none slept
                assertArrayEquals(new int[] {0}, words(raw, 192, 1));
            } finally {
                PosixSharedMemory.unlink(name);
            }
        }
    }

    private static int[] words(MemorySegment raw, long at, int count) {
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = raw.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), at + 4L * i);
        }
        return out;
    }

    private static byte[] bytes(MemorySegment raw, long at, int count) {
        return raw.asSlice(at, count).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] bytes(ByteBuffer buffer, int count) {
        byte[] out = new byte[count];
        buffer.get(0, out);
        return out;
    }
}
