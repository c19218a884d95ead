package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import dev.ipclab.peer.frame.Frame;
import java.io.Closeable;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The reply queues a posix-mq load server answers on (PROTOCOL.md 11.5.5): opened the first time
 * a connection needs one (O_WRONLY | O_NONBLOCK), kept open while it lasts, and closed and
 * unlinked at the server's exit. Its END_ACK closes a connection's descriptor: the next client
 * with that number makes a new queue under the same name, which must be opened again.
 */
final class ReplyQueues implements Closeable {
    /** An open reply queue and the size its client gave its messages. */
    record Reply(PosixMessageQueue queue, int messageSize) {}

    private final String prefix;
    private final AtomicReferenceArray<Reply> open =
            new AtomicReferenceArray<>(Frame.REPLY_ADDRESSES);
    /** Every name opened, for the unlink at exit. */
    private final Set<String> opened = ConcurrentHashMap.newKeySet();

    ReplyQueues(String prefix) {
        this.prefix = prefix;
    }

    /** The server's name prefix, which READY's endpoint carries. */
    String prefix() {
        return prefix;
    }

    /**
     * Connection c's queue, opened now if it is not yet.
     *
     * @throws ReplyDroppedException it cannot be opened (no such queue: no client of that
     *     number, or it has already ended)
     */
    Reply get(int connection) throws ReplyDroppedException {
        Reply reply = open.get(connection);
        return reply != null ? reply : openNow(connection);
    }

    /** Opens are rare (once per connection) and must not race to open one queue twice. */
    private synchronized Reply openNow(int connection) throws ReplyDroppedException {
        Reply reply = open.get(connection);
        if (reply != null) {
            return reply;
        }
        String name = PosixMqLoad.replyName(prefix, connection);
        try {
            PosixMessageQueue queue = PosixMessageQueue.open(name,
                    PosixMessageQueue.O_WRONLY | PosixMessageQueue.O_NONBLOCK);
            opened.add(name);
            try {
                reply = new Reply(queue, (int) queue.attributes().messageSize());
            } catch (LinuxIpcException e) {
                queue.close();
                throw e;
            }
        } catch (LinuxIpcException e) {
            throw new ReplyDroppedException("answer to " + name + " dropped: cannot open it: "
                    + e.getMessage(), e);
        }
        open.set(connection, reply);
        return reply;
    }

    /** After connection c's END_ACK: its descriptor is closed (the name stays for the exit). */
    void forget(int connection) {
        Reply reply = open.getAndSet(connection, null);
        if (reply != null) {
            try {
                reply.queue().close();
            } catch (LinuxIpcException e) {
                // Already gone: nothing is lost.
            }
        }
    }

    /** Closes every descriptor and unlinks every queue opened (those still there). */
    @Override
    public synchronized void close() throws IOException {
        for (int c = 0; c < open.length(); c++) {
            forget(c);
        }
        MessageChannel.removeAll(opened.stream().map(name -> (MessageChannel.Removal)
                () -> unlink(name)).toArray(MessageChannel.Removal[]::new));
    }

    /** A queue already gone (its client or the orchestrator unlinked it) is no failure. */
    static void unlink(String name) throws LinuxIpcException {
        try {
            PosixMessageQueue.unlink(name);
        } catch (LinuxIpcException e) {
            if (e.errno() != LinuxIpcException.ENOENT) {
                throw e;
            }
        }
    }
}
