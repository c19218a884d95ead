package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StreamsTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    /** A serializable object of ~40 KB, so its stream spans several 8 KiB messages. */
    record Parcel(String label, long[] numbers, Map<String, List<Integer>> nested) implements Serializable {
        private static final long serialVersionUID = 1L;

        static Parcel sample() {
            long[] numbers = new long[5000];
            for (int i = 0; i < numbers.length; i++) {
                numbers[i] = i * 0x9E3779B97F4A7C15L;
            }
            Map<String, List<Integer>> nested = new TreeMap<>();
            for (int i = 0; i < 20; i++) {
                List<Integer> list = new ArrayList<>();
                for (int j = 0; j < i; j++) {
                    list.add(i * j);
                }
                nested.put("k" + i, list);
            }
            return new Parcel("ipclab \u00e9t\u00e9", numbers, nested);
        }

        boolean same(Parcel o) {
            return label.equals(o.label) && java.util.Arrays.equals(numbers, o.numbers)
                    && nested.equals(o.nested);
        }
    }

    @Test
    void bytesCrossAMessageQueueInMessageSizedPieces() throws Exception {
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(TestKeys.key(), 0600));
        byte[] data = new byte[20000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
            try (MessageQueueInputStream in = new MessageQueueInputStream(q, 3, 1000)) {
                return in.readAllBytes();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try (MessageQueueOutputStream out = new MessageQueueOutputStream(q, 3, 1000)) {
            out.write(data, 0, 5);
            out.write(data, 5, data.length - 5);
        }
        assertArrayEquals(data, reader.get(20, TimeUnit.SECONDS));
    }

    @Test
    void objectCrossesSharedMemoryStream() throws Exception {
        int key = TestKeys.key();
        SysVSharedMemory shm = keys.track(SysVSharedMemory.create(key, 2 * (8 + 4096), 0600));
        SysVSemaphoreSet sems = keys.track(SysVSemaphoreSet.create(key, 2, 0600));
        sems.setAll(1, 0);
        MemorySegment mem = shm.attach(false);
        CompletableFuture<Object> reader = CompletableFuture.supplyAsync(() -> {
            try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(
                    new SharedMemoryInputStream(mem, sems, 0, 4096, 0, 1)))) {
                Object o = in.readObject();
                assertEquals(-1, in.read());
                return o;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(
                new SharedMemoryOutputStream(mem, sems, 0, 4096, 0, 1)))) {
            out.writeObject(Parcel.sample());
        }
        assertTrue(Parcel.sample().same((Parcel) reader.get(20, TimeUnit.SECONDS)));
        assertArrayEquals(new int[] {1, 0}, sems.getAll(2));
    }

    /** An object written with ObjectOutputStream arrives intact in another JVM, and back. */
    @Test
    void objectCrossesAMessageQueueIntoAnotherProcess() throws Exception {
        int key = TestKeys.key();
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(key, 0600));
        Process child = ChildJvm.start(false, EchoChild.class, Integer.toString(key));
        try {
            try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(
                    new MessageQueueOutputStream(q, 1)))) {
                out.writeObject(Parcel.sample());
            }
            Object back;
            try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(
                    new MessageQueueInputStream(q, 2)))) {
                back = in.readObject();
            }
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not finish");
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, child.exitValue(), err);
            assertEquals("intact", out.trim(), err);
            assertTrue(Parcel.sample().same((Parcel) back));
        } finally {
            child.destroyForcibly();
        }
    }

    /** The other process: reads a Parcel from type 1, says whether it is intact, echoes it on 2. */
    public static final class EchoChild {
        public static void main(String[] args) throws Exception {
            SysVMessageQueue q = SysVMessageQueue.open(Integer.parseInt(args[0]));
            Parcel p;
            try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(
                    new MessageQueueInputStream(q, 1)))) {
                p = (Parcel) in.readObject();
            }
            System.out.println(Parcel.sample().same(p) ? "intact" : "damaged");
            try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(
                    new MessageQueueOutputStream(q, 2)))) {
                out.writeObject(p);
            }
        }
    }
}
