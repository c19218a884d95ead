package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.Protocol.Command;

/**
 * The redis-tcp and redis-uds responder (PROTOCOL.md 4.10) as a {@link DatagramPort}, so the
 * {@code DatagramServer} checks and answers every element as it does a datagram: one connection
 * to the Redis server; each frame taken with BLPOP NAME:requests 0 and answered with RPUSH
 * NAME:replies, written in one call with the next take (the request's payload is checked after
 * that write, PROTOCOL.md 3); a stream's messages taken in batches, LPOP NAME:requests C with C =
 * min(messages still due, W(S)), BLPOP when the list is empty, and a credit pushed onto
 * NAME:credits per K(S) of them; NAME:credits deleted in the write that answers a MARK or END. A
 * frame left unanswered (rejected) gets an empty element before the next take. A lost connection
 * closes the port, which ends the server with an io error.
 */
public final class RedisPort extends CreditedPort {
    private static final byte[] FOREVER = {'0'};

    private final RedisWire wire;
    private final RedisEndpoint keys;
    private final byte[] requests;
    private final byte[] replies;
    private final byte[] credits;
    /** The elements of the last LPOP not yet handed out, from {@link #next}. */
    private List<?> batch = List.of();
    private int next;
    /** A frame was handed out and not answered. */
    private boolean owed;
    /** The take that is written already (with an answer), not yet read; or none. */
    private boolean takeWritten;
    /** Whether the take last written was a BLPOP (one element) or an LPOP (a batch). */
    private boolean blpop;
    /** The last LPOP found the list empty: the next take waits for one element. */
    private boolean emptied;
    /** The messages the stream's MARK announced that are not handed out yet. */
    private long due;
    private int window = 1;

    private RedisPort(RedisWire wire, RedisEndpoint endpoint, String broker) {
        super(endpoint.text(), broker);
        this.wire = wire;
        this.keys = endpoint;
        this.requests = endpoint.requests();
        this.replies = endpoint.replies();
        this.credits = endpoint.credits();
    }

    /**
     * Connects, deletes its three keys (what a killed earlier run left on a shared server) and
     * asks the server's version for READY.
     *
     * @param tcp redis-tcp's endpoint, else redis-uds's
     */
    public static DatagramPort connect(String endpoint, boolean tcp) throws IOException {
        RedisEndpoint at = RedisEndpoint.parse(endpoint, tcp);
        RedisWire wire = RedisWire.open(at, 0);
        try {
            wire.append(false, Command.DEL, at.requests(), at.replies(), at.credits());
            wire.append(true, Command.INFO, "server".getBytes(StandardCharsets.US_ASCII));
            wire.write();
            return new RedisPort(wire, at, "Redis " + RedisWire.redisVersion(wire.next()));
        } catch (IOException | RuntimeException e) {
            wire.shut();
            throw e;
        }
    }

    @Override
    public int receive(ByteBuffer dst, boolean messageDue) throws IOException {
        try {
            if (!messageDue) {
                due = 0; // none announced, or the server gave up the count (a rejected message)
            }
            if (owed) {
                owed = false;
                wire.append(false, Command.RPUSH, replies, EMPTY);
            }
            hold(nextElement());
            if (messageDue) {
                due--;
                if (creditDue()) { // written with the next take or answer
                    wire.append(false, Command.RPUSH, credits, EMPTY);
                }
            } else {
                owed = true;
            }
            return copyHeld(dst);
        } catch (IOException | RuntimeException e) {
            open = false; // the connection's state is unknown now: the server ends (4.10)
            throw e;
        }
    }

    /** The next element of the batch, else of the next take (written now with what is appended). */
    private byte[] nextElement() throws IOException {
        while (next >= batch.size()) {
            if (!takeWritten) {
                appendTake();
            }
            wire.write();
            takeWritten = false;
            Object reply = wire.next();
            emptied = reply == null;
            if (reply == null) {
                continue; // LPOP found the list empty: wait for one element
            }
            if (!(reply instanceof List<?> list) || (blpop && list.size() != 2)) {
                throw new IOException("a take from " + keys.name() + ":requests answered "
                        + "no list of elements");
            }
            batch = blpop ? list.subList(1, 2) : list;
            next = 0;
        }
        if (!(batch.get(next++) instanceof byte[] value)) {
            throw new IOException("a take from " + keys.name() + ":requests answered an "
                    + "element that is not bytes");
        }
        return value;
    }

    /** The next take: a batch of the messages due, or one element waited for. */
    private void appendTake() throws IOException {
        blpop = due == 0 || emptied;
        if (blpop) {
            wire.append(true, Command.BLPOP, requests, FOREVER);
        } else {
            byte[] count = Long.toString(Math.min(due, window)).getBytes(StandardCharsets.US_ASCII);
            wire.append(true, Command.LPOP, requests, count);
        }
    }

    /**
     * A stream's window and credits count from its MARK (4.10), whose answer comes next; the
     * messages are taken in batches from then on.
     */
    @Override
    public void streamStarts(int messageSize, long count) {
        due = count;
        window = startCredits(messageSize);
    }

    /**
     * The answer to the frame handed out last, written at once: with the next take unless more
     * elements of a batch are still to be handed out (each answer goes before the next is made,
     * the server's buffers being reused); NAME:credits deleted in the same write when it answers
     * a MARK or END, so that no credit outlives its stream.
     */
    @Override
    public void reply(ByteBuffer frame) throws IOException {
        try {
            byte kind = Frame.kind(frame);
            if (kind == Frame.MARK_ACK || kind == Frame.END_ACK) {
                wire.append(false, Command.DEL, credits);
            }
            wire.append(false, Command.RPUSH, replies, bytes.of(frame));
            owed = false;
            emptied = false;
            if (next >= batch.size()) {
                appendTake();
                takeWritten = true;
            }
            wire.write();
        } catch (IOException | RuntimeException e) {
            open = false; // the connection's state is unknown now: the server ends (4.10)
            throw e;
        }
    }

    /** Closing the socket makes the serving thread's blocked read fail at once. */
    @Override
    public void wake() {
        wire.shut();
    }

    /** The keys stay (empty, as a stream ends); the connection closes. */
    @Override
    public void close() {
        open = false;
        wire.shut();
    }
}
