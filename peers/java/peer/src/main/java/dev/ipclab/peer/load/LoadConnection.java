package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.ClientLink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * One connection of a load client (PROTOCOL.md 11.5.3 steps 2-4), run by a platform thread of
 * its own: requests c, c + C, c + 2C … in order, each sent at its intended start (or late, once
 * the previous response on this connection is in), then END. Every buffer is made before T0;
 * the stamp is written before the wait, so only the clock, the send and the receive lie between
 * {@code sent} and {@code received}.
 */
final class LoadConnection implements Runnable {
    private final int index;
    private final ClientLink link;
    private final LoadLedger ledger;
    private final CountDownLatch go;
    private final long[] t0;
    private final int requestSize;
    private final int responseSize;
    private final OutgoingFrame request;
    private final OutgoingFrame end;
    private final ByteBuffer response;
    private final ByteBuffer endAck;
    private final ExpectedPayload.Check expected;
    private boolean dead;

    /** @param t0 T0, written before {@code go} opens */
    LoadConnection(int index, ClientLink link, LoadLedger ledger, CountDownLatch go, long[] t0,
            long seed, int requestSize, int responseSize) {
        this.index = index;
        this.link = link;
        this.ledger = ledger;
        this.go = go;
        this.t0 = t0;
        this.requestSize = requestSize;
        this.responseSize = responseSize;
        this.request = new OutgoingFrame(Frame.REQUEST, seed, Payload.REQUEST_STREAM, requestSize);
        this.end = new OutgoingFrame(Frame.END, seed, Payload.REQUEST_STREAM, 0);
        this.response = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE + responseSize));
        this.endAck = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD));
        this.expected = new ExpectedPayload(seed, Payload.RESPONSE_STREAM, responseSize)
                .bind(response, Frame.HEADER_SIZE);
    }

    @Override
    public void run() {
        try {
            awaitStart();
            long start = t0[0];
            int size = ledger.schedule.size();
            long next = 0;
            for (int k = index; k < size; k += ledger.clients) {
                if (dead) {
                    ledger.outcome[k] = Outcome.NOT_SENT.code();
                } else {
                    request(k, start);
                }
                next = k + 1L;
            }
            if (!dead) {
                finish(next);
            }
        } finally {
            try {
                link.close();
            } catch (IOException e) {
                // The run is over; a failing close loses nothing that was measured.
            }
        }
    }

    /** Waits for T0's release; an interrupt (nobody sends one) is kept for later. */
    private void awaitStart() {
        boolean interrupted = false;
        while (true) {
            try {
                go.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void request(int k, long start) {
        ByteBuffer frame = request.prepare(k, responseSize);
        long target = start + ledger.schedule.offset(k);
        for (long now = System.nanoTime(); now < target; now = System.nanoTime()) {
            LockSupport.parkNanos(target - now);
        }
        long sent = System.nanoTime();
        int received;
        try {
            link.send(frame);
            received = link.receive(response, Frame.HEADER_SIZE + responseSize);
        } catch (IOException e) {
            ledger.sent[k] = sent - start;
            ledger.outcome[k] = Outcome.of(e).code();
            dead = true;
            return;
        }
        long done = System.nanoTime();
        ledger.sent[k] = sent - start;
        ledger.received[k] = done - start;
        ledger.outcome[k] = validate(k, received).code();
    }

    /** Header and payload, after {@code received}; a bad header leaves the stream unframed. */
    private Outcome validate(int k, int received) {
        try {
            if (received != Frame.HEADER_SIZE + responseSize) {
                throw new PeerException(ErrorKind.PROTOCOL, "response size: expected "
                        + (Frame.HEADER_SIZE + responseSize) + ", received " + received);
            }
            Frame.checkReply(response, Frame.RESPONSE, k, responseSize, requestSize);
        } catch (PeerException e) {
            ledger.fail(e);
            dead = true;
            return Outcome.PROTOCOL;
        }
        int offset = expected.firstMismatch(k);
        if (offset < 0) {
            return Outcome.OK;
        }
        ledger.fail(PeerException.mismatch("payload mismatch: response sequence " + k
                + " differs from the expected bytes at offset " + offset));
        return Outcome.PAYLOAD_MISMATCH;
    }

    /** END with the number after this connection's last request, and its END_ACK's count. */
    private void finish(long sequence) {
        int ackSize = Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD;
        try {
            link.send(end.prepare(sequence, 0));
            link.receive(endAck, ackSize);
            Frame.checkReply(endAck, Frame.END_ACK, sequence, Frame.END_ACK_PAYLOAD, 0);
            long corrupted = endAck.getLong(Frame.HEADER_SIZE);
            if (corrupted != 0) {
                ledger.fail(PeerException.mismatch("payload mismatch: server received "
                        + Long.toUnsignedString(corrupted) + " corrupted request payloads"));
            }
        } catch (PeerException e) {
            ledger.fail(e);
        } catch (IOException e) {
            String message = "connection " + index + ": END failed: " + PeerException.describe(e);
            ledger.fail(Outcome.of(e) == Outcome.TIMEOUT ? PeerException.timeout(message, e)
                    : PeerException.io(message, e));
        }
    }
}
