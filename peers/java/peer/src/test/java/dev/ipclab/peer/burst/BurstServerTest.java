package dev.ipclab.peer.burst;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Loopback;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pattern burst, server side (PROTOCOL.md 11.4): every model serves a burst from a plain client
 * thread pool and writes one complete record per connection; errors are recorded, not fatal.
 */
class BurstServerTest {
    private static final long SEED = 7;
    private static final Set<ServerModel> SPAWNING = Set.of(ServerModel.THREAD,
            ServerModel.VIRTUAL_THREAD, ServerModel.THREAD_POOL);

    @TempDir
    Path dir;

    /** A burst server of this test JVM, serving on a thread of its own. */
    private final class Running {
        final BurstServer server;
        final Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        final Path phases = dir.resolve("phases.csv");
        final FutureTask<Integer> serving;

        Running(ServerModel model, int connections, int workers) throws Exception {
            server = BurstServer.open(model, Listening::tcp, "127.0.0.1:0", SEED,
                    new BurstOptions(model.label(), connections, phases, 512, workers),
                    diagnostics.stream);
            serving = new FutureTask<>(server::serve);
            Thread.ofPlatform().daemon().start(serving);
        }

        InetSocketAddress address() {
            String[] hostPort = server.endpoint().split(":");
            return new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        }

        /** Waits for serve() to end by itself, then closes as Lifecycle does: the file. */
        List<Map<String, String>> finish() throws Exception {
            assertEquals(0, serving.get(30, TimeUnit.SECONDS), diagnostics.text());
            server.close();
            return readPhases(phases);
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void eachModelServesABurstAndWritesEveryPhaseThatApplies(ServerModel model) throws Exception {
        int connections = 20;
        Running running = new Running(model, connections, 3);
        ExecutorService clients = Executors.newFixedThreadPool(10);
        List<Future<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            int index = i;
            answers.add(clients.submit(() -> exchange(running.address(), request(index, 1000, 8))));
        }
        for (int i = 0; i < connections; i++) {
            assertArrayEquals(response(i, 8, 1000), answers.get(i).get(30, TimeUnit.SECONDS));
        }
        clients.shutdown();
        List<Map<String, String>> rows = running.finish();
        assertEquals(connections, rows.size());
        long previousReturn = -1;
        int loopless = 0;
        for (int i = 0; i < connections; i++) {
            Map<String, String> row = rows.get(i);
            assertEquals(Integer.toString(i), row.get("conn_index"));
            assertEquals("", row.get("error"), row.toString());
            for (String phase : List.of("accept_ns", "transfer_ns", "total_ns")) {
                assertTrue(Long.parseLong(row.get(phase)) >= 0, phase + " " + row);
            }
            assertTrue(Long.parseLong(row.get("total_ns")) >= Long.parseLong(row.get("transfer_ns")));
            for (String phase : List.of("spawn_ns", "start_delay_ns")) {
                assertEquals(SPAWNING.contains(model), !row.get(phase).isEmpty(), phase + " " + row);
            }
            int worker = Integer.parseInt(row.get("worker"));
            assertTrue(model == ServerModel.THREAD_POOL ? worker >= 0 && worker < 3 : worker == 0);
            loopless += row.get("loop_ns").isEmpty() ? 1 : 0;
            long returned = Long.parseLong(row.get("accept_start_ns")) + Long.parseLong(row.get("accept_ns"));
            assertTrue(returned >= previousReturn, "rows in the order the accepts returned");
            previousReturn = returned;
        }
        assertTrue(loopless <= 1, "only the acceptor's last connection has no loop");
    }

    @ParameterizedTest
    @EnumSource(value = ServerModel.class, names = {"ITERATIVE", "NIO"})
    void badPayloadEarlyCloseAndBadKindAreRecordedAndCounted(ServerModel model) throws Exception {
        Running running = new Running(model, 4, 4);
        InetSocketAddress address = running.address();
        assertArrayEquals(response(0, 8, 1000), exchange(address, request(0, 1000, 8)));
        byte[] corrupted = request(1, 1000, 8);
        corrupted[Frame.HEADER_SIZE + 500] ^= 1;
        assertArrayEquals(response(1, 8, 1000), exchange(address, corrupted));
        assertArrayEquals(new byte[0], exchange(address, Arrays.copyOf(request(2, 10, 8), 30)));
        byte[] end = request(3, 0, 0);
        end[Frame.OFF_KIND] = Frame.END;
        assertArrayEquals(new byte[0], exchange(address, end));
        List<Map<String, String>> rows = running.finish();
        assertEquals(List.of("", "payload-mismatch", "eof", "protocol"),
                rows.stream().map(r -> r.get("error")).toList());
        assertEquals("", rows.get(2).get("transfer_ns"));
        assertTrue(running.diagnostics.text().contains("ipclab-peer: rejected frame: unexpected kind"));
    }

    @Test
    void closingMidBurstWritesWhatWasAcceptedAndMarksTheUnfinishedLost() throws Exception {
        Running running = new Running(ServerModel.THREAD, 5, 4);
        assertArrayEquals(response(0, 8, 1000), exchange(running.address(), request(0, 1000, 8)));
        try (Socket held = new Socket()) {
            held.connect(running.address(), 10_000);
            held.getOutputStream().write(request(1, 1000, 8), 0, 10);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (running.server.log().rows().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            running.server.stop();
            assertEquals(0, running.serving.get(10, TimeUnit.SECONDS));
            running.server.close();
        }
        List<Map<String, String>> rows = readPhases(running.phases);
        assertEquals(List.of("", "lost"), rows.stream().map(r -> r.get("error")).toList());
    }

    /** The client side of 11.4's exchange: everything the server sent before it closed. */
    private static byte[] exchange(InetSocketAddress address, byte[] request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(address, 10_000);
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            return in.readAllBytes();
        }
    }

    static byte[] request(long index, int length, int wanted) {
        return frame(Frame.REQUEST, Payload.REQUEST_STREAM, index, length, wanted);
    }

    static byte[] response(long index, int wanted, int requestLength) {
        return frame(Frame.RESPONSE, Payload.RESPONSE_STREAM, index, wanted, requestLength);
    }

    private static byte[] frame(byte kind, int stream, long index, int length, int wanted) {
        ByteBuffer buf = ByteBuffer.allocate(Frame.HEADER_SIZE + length).order(ByteOrder.LITTLE_ENDIAN);
        Frame.writeHeader(buf, kind, index, length, wanted);
        Payload.fillBase(buf, Frame.HEADER_SIZE, SEED, stream, length);
        Payload.stamp(buf, Frame.HEADER_SIZE, length, Payload.head(SEED, stream), index);
        return buf.array();
    }

    static List<Map<String, String>> readPhases(Path path) throws IOException {
        List<String> lines = Files.readAllLines(path);
        assertEquals(PhaseLog.HEADER.strip(), lines.get(0));
        String[] names = lines.get(0).split(",", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] values = line.split(",", -1);
            Map<String, String> row = new java.util.LinkedHashMap<>();
            for (int i = 0; i < names.length; i++) {
                row.put(names[i], values[i]);
            }
            rows.add(row);
        }
        return rows;
    }
}
