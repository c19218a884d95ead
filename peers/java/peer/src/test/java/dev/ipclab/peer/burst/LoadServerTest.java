package dev.ipclab.peer.burst;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.server.Loopback;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The load server (PROTOCOL.md 11.5.1): section 2's exchange per persistent connection on each
 * model; a malformed frame closes its own connection only, while another keeps being served.
 */
class LoadServerTest {
    private static final long SEED = 7;

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void aRejectedFrameClosesItsConnectionWhileAnotherGoesOn(ServerModel model) throws Exception {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        BurstServer server = BurstServer.open(model, Listening::tcp, "127.0.0.1:0", SEED,
                BurstOptions.load(model.label(), 2, true), diagnostics.stream);
        FutureTask<Integer> serving = new FutureTask<>(server::serve);
        Thread.ofPlatform().daemon().start(serving);
        String[] hostPort = server.endpoint().split(":");
        InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        try (Socket good = open(address)) {
            assertArrayEquals(BurstServerTest.response(0, 8, 16),
                    roundTrip(good, BurstServerTest.request(0, 16, 8), 24 + 8));
            if (model != ServerModel.ITERATIVE) {  // iterative serves the next one after END
                rejected(address, diagnostics);
            }
            byte[] corrupted = BurstServerTest.request(1, 16, 8);
            corrupted[Frame.HEADER_SIZE + 3] ^= 1;
            assertArrayEquals(BurstServerTest.response(1, 8, 16), roundTrip(good, corrupted, 24 + 8));
            byte[] end = BurstServerTest.request(2, 0, 0);
            end[Frame.OFF_KIND] = Frame.END;
            ByteBuffer ack = ByteBuffer.wrap(roundTrip(good, end, 24 + 8)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(Frame.END_ACK, ack.get(Frame.OFF_KIND));
            assertEquals(2, ack.getLong(Frame.OFF_SEQUENCE));
            assertEquals(1, ack.getLong(Frame.HEADER_SIZE), "the connection's corrupted count");
        }
        if (model == ServerModel.ITERATIVE) {
            rejected(address, diagnostics);
        }
        server.stop();
        assertEquals(0, serving.get(10, TimeUnit.SECONDS));
        server.close();
    }

    /** A MARK is no frame of the load exchange: rejected, its connection closed unanswered. */
    private static void rejected(InetSocketAddress address, Loopback.Diagnostics diagnostics)
            throws Exception {
        try (Socket bad = open(address)) {
            byte[] mark = BurstServerTest.request(0, 16, 0);
            mark[Frame.OFF_KIND] = Frame.MARK;
            bad.getOutputStream().write(mark);
            assertEquals(0, bad.getInputStream().readAllBytes().length);
        }
        assertTrue(diagnostics.text().contains("ipclab-peer: rejected frame: unexpected kind"),
                diagnostics.text());
    }

    private static Socket open(InetSocketAddress address) throws Exception {
        Socket socket = new Socket();
        socket.connect(address, 10_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] roundTrip(Socket socket, byte[] frame, int answer) throws Exception {
        socket.getOutputStream().write(frame);
        InputStream in = socket.getInputStream();
        byte[] got = in.readNBytes(answer);
        assertEquals(answer, got.length, "a whole answer");
        return got;
    }
}
