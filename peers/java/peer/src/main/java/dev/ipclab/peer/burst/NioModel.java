package dev.ipclab.peer.burst;

import dev.ipclab.peer.frame.Frame;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;

/**
 * {@code nio} (PROTOCOL.md 11.4): one thread, one {@link Selector} loop, as the C++ epoll model:
 * one accept per turn while the listening socket is ready; each connection non-blocking, read
 * and answered as its bytes arrive. accept is the accept call made after readiness; loop runs
 * from its return to the next accept call of this loop.
 */
final class NioModel {
    private final BurstServer server;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private PhaseRecord previous;

    private NioModel(BurstServer server) throws IOException {
        this.server = server;
        this.listener = server.listener();
        this.selector = Selector.open();
    }

    static void run(BurstServer server) throws IOException {
        NioModel model = new NioModel(server);
        server.wakeWith(model.selector::wakeup);
        try {
            model.loop();
        } catch (ClosedSelectorException e) {
            // Stopped.
        } finally {
            server.wakeWith(null);
            model.closeConnections();
            model.selector.close();
        }
    }

    private void loop() throws IOException {
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
        while (!server.finished()) {
            selector.select();
            Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
            while (ready.hasNext()) {
                SelectionKey key = ready.next();
                ready.remove();
                if (!key.isValid()) {
                    continue;
                }
                if (key.isAcceptable()) {
                    acceptOne();
                } else {
                    ((Step) key.attachment()).advance(key);
                }
            }
        }
    }

    private void acceptOne() throws IOException {
        long start = System.nanoTime();
        if (previous != null) {
            previous.loop = start - previous.acceptedAt;
            previous = null;
        }
        SocketChannel channel = listener.accept();
        long accepted = System.nanoTime();
        if (channel == null) {
            return; // the client was gone before we took it
        }
        previous = server.log().accepted(start, accepted, 0);
        channel.configureBlocking(false);
        Step connection = server.options().load()
                ? new NioExchange(server, channel, previous) : new Connection(channel, previous);
        channel.register(selector, SelectionKey.OP_READ, connection);
    }

    /** Connections still open when the loop ends (stopped): closed with it. */
    private void closeConnections() {
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() != null) {
                try {
                    key.channel().close();
                } catch (IOException e) {
                    // Stopping: a failing close loses nothing.
                }
            }
        }
    }

    /** What a connection does when its socket is ready. */
    interface Step {
        void advance(SelectionKey key);
    }

    /** One burst connection's progress: the header, the rest of the request, the response. */
    private final class Connection implements Step {
        private final SocketChannel channel;
        private final PhaseRecord record;
        private ByteBuffer request = ByteBuffer.allocate(Frame.HEADER_SIZE)
                .order(ByteOrder.LITTLE_ENDIAN);
        private ByteBuffer response;
        private boolean headerRead;
        private int size;  // the whole request's, once its header is read
        private long transferStart = PhaseRecord.NONE;

        Connection(SocketChannel channel, PhaseRecord record) {
            this.channel = channel;
            this.record = record;
        }

        @Override
        public void advance(SelectionKey key) {
            try {
                if (response == null) {
                    read(key);
                }
                if (response != null) {
                    write(key);
                }
            } catch (IOException e) {
                end(BurstExchange.kind(e));
            }
        }

        private void read(SelectionKey key) throws IOException {
            if (transferStart == PhaseRecord.NONE) {
                transferStart = System.nanoTime();
            }
            while (request.hasRemaining()) {
                int got = channel.read(request);
                if (got < 0) {
                    throw new EOFException("the client closed before a whole request");
                }
                if (got == 0) {
                    return;
                }
                if (!request.hasRemaining() && !headerRead) {
                    headerRead = true;
                    size = Frame.HEADER_SIZE + server.exchange().requestLength(request);
                    request = BurstExchange.started(request, size);
                } else if (!request.hasRemaining() && request.capacity() < size) {
                    request = BurstExchange.grown(request, size);  // only as bytes arrive
                }
            }
            response = server.exchange().response(request);
            key.interestOps(SelectionKey.OP_WRITE);
        }

        private void write(SelectionKey key) throws IOException {
            channel.write(response);
            if (response.hasRemaining()) {
                return; // the rest when the socket is writable again
            }
            record.transfer = System.nanoTime() - transferStart;
            end(server.exchange().check(request));
        }

        private void end(String failure) {
            try {
                channel.close();
            } catch (IOException e) {
                // Closing a socket we are done with: nothing left to lose.
            }
            record.finish(failure);
            server.ended();
        }
    }
}
