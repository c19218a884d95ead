package dev.ipclab.peer;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * udp: answers each datagram to its source address. A malformed datagram is dropped with a
 * rejection line; the server goes on. Corrupted-request counts are kept per client address.
 */
final class DatagramServer implements Server {
    private final DatagramChannel channel;
    private final Responder responder;
    private final PrintStream diagnostics;
    private final ByteBuffer in = Frame.allocate(Udp.MAX_DATAGRAM + 1);
    private final Map<SocketAddress, Long> corrupted = new HashMap<>();
    private volatile boolean stopping;

    DatagramServer(DatagramChannel channel, Responder responder, PrintStream diagnostics) {
        this.channel = channel;
        this.responder = responder;
        this.diagnostics = diagnostics;
    }

    @Override
    public String endpoint() {
        try {
            return Endpoints.format((InetSocketAddress) channel.getLocalAddress());
        } catch (IOException e) {
            throw new IllegalStateException("a bound channel has a local address", e);
        }
    }

    @Override
    public int serve() {
        while (!stopping) {
            try {
                in.clear();
                SocketAddress client = channel.receive(in);
                handle(client, in.position());
            } catch (IOException e) {
                if (stopping) {
                    return 0;
                }
                // One failed send or receive concerns one client; the server goes on.
                diagnostics.println("ipclab-peer: io: datagram failed: " + PeerException.describe(e));
                if (!channel.isOpen()) {
                    return ErrorKind.IO.exitCode();
                }
            }
        }
        return 0;
    }

    private void handle(SocketAddress client, int size) throws IOException {
        String problem = problem(size);
        if (problem != null) {
            diagnostics.println("ipclab-peer: rejected frame: " + problem);
            return;
        }
        long sequence = Frame.sequence(in);
        if (Frame.kind(in) == Frame.END) {
            Long count = corrupted.remove(client);
            channel.send(responder.endAck(sequence, count == null ? 0 : count), client);
            return;
        }
        int length = (int) Frame.length(in);
        channel.send(responder.response(sequence, (int) Frame.wanted(in), length), client);
        responder.sent();
        if (!responder.intact(in, length, sequence)) {
            corrupted.merge(client, 1L, Long::sum);
        }
    }

    /** The stream checks of PROTOCOL.md section 2, then what only a datagram can get wrong. */
    static String problem(ByteBuffer datagram, int size) {
        if (size < Frame.HEADER_SIZE) {
            return "truncated header";
        }
        String problem = Frame.requestProblem(datagram);
        if (problem != null) {
            return problem;
        }
        if (Frame.wanted(datagram) > Udp.MAX_PAYLOAD) {
            return "length too large";
        }
        if (size != Frame.HEADER_SIZE + Frame.length(datagram)) {
            return "length mismatch";
        }
        return null;
    }

    private String problem(int size) {
        return problem(in, size);
    }

    @Override
    public void stop() {
        stopping = true;
        try {
            channel.close();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: closing the socket: " + PeerException.describe(e));
        }
    }

    @Override
    public void close() {
        stop();
    }
}
