package dev.ipclab.peer.frame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 24-byte frame header of PROTOCOL.md section 2: encoding, and the checks both sides make.
 *
 * <p>Everything works on absolute offsets of a little-endian buffer so that the hot paths neither
 * move buffer positions nor allocate.
 */
public final class Frame {
    public static final int HEADER_SIZE = 24;
    public static final int MAX_PAYLOAD = 134_217_728;

    static final byte VERSION = 1;
    public static final byte REQUEST = 1;
    public static final byte RESPONSE = 2;
    public static final byte END = 3;
    public static final byte END_ACK = 4;
    /**
     * Section 11: a stream's control frame (client to server) and its answer. Kind 5 (DATA, a
     * framed stream message until contract 3) is gone: a stream message is bare bytes since 4.
     */
    public static final byte MARK = 6;
    public static final byte MARK_ACK = 7;

    /** flags NO_REPLY: a REQUEST or END of a one-way short (section 11.2). */
    public static final short NO_REPLY = 1;
    /**
     * load over a message queue (11.5.5): a REQUEST's or END's flags are 0x8000 + c, the reply
     * address of the client's connection c, 0 ≤ c < {@link #REPLY_ADDRESSES}.
     */
    public static final int REPLY_ADDRESS = 0x8000;
    public static final int REPLY_ADDRESSES = 0x400;

    /** Which frames a server takes: checks 3 and 4 of section 2 depend on what it serves. */
    public enum Accepts {
        /** rr, short (NO_REPLY), stream (MARK): the frame mechanisms' servers. */
        ALL,
        /** Section 2's rr exchange only (a load server, 11.5.1): no MARK, flags 0. */
        EXCHANGE,
        /** load over a message queue (11.5.5): no MARK, flags a reply address. */
        QUEUE_LOAD
    }

    /** The bytes "IPCL" read as a little-endian u32. */
    static final int MAGIC = 0x4C43_5049;

    static final int OFF_MAGIC = 0;
    static final int OFF_VERSION = 4;
    public static final int OFF_KIND = 5;
    static final int OFF_FLAGS = 6;
    public static final int OFF_SEQUENCE = 8;
    static final int OFF_LENGTH = 16;
    public static final int OFF_WANTED = 20;

    /** END_ACK carries the server's corrupted-request counter as a u64. */
    public static final int END_ACK_PAYLOAD = 8;
    /** A one-way END_ACK: u64 corrupted, u64 requests received (section 11.2). */
    public static final int ONE_WAY_END_ACK_PAYLOAD = 16;
    /** A stream's END_ACK: seven u64 (section 11.1 step 4). */
    public static final int STREAM_END_ACK_PAYLOAD = 56;
    /** MARK's payload: u64 message size, u64 count of messages that follow (section 11.1). */
    public static final int MARK_PAYLOAD = 16;

    private Frame() {}

    /** A direct little-endian buffer; direct so that channel I/O needs no hidden copy. */
    public static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    public static void writeHeader(ByteBuffer buf, byte kind, long sequence, int length, int wanted) {
        buf.putInt(OFF_MAGIC, MAGIC);
        buf.put(OFF_VERSION, VERSION);
        buf.put(OFF_KIND, kind);
        buf.putShort(OFF_FLAGS, (short) 0);
        buf.putLong(OFF_SEQUENCE, sequence);
        buf.putInt(OFF_LENGTH, length);
        buf.putInt(OFF_WANTED, wanted);
    }

    public static byte kind(ByteBuffer buf) {
        return kind(buf, 0);
    }

    public static long sequence(ByteBuffer buf) {
        return sequence(buf, 0);
    }

    /** The length field as an unsigned value: a hostile 0xFFFFFFFF must not turn negative. */
    public static long length(ByteBuffer buf) {
        return length(buf, 0);
    }

    public static long wanted(ByteBuffer buf) {
        return wanted(buf, 0);
    }

    /** The getters for a header at offset {@code at} (a reader holding several frames). */
    public static byte kind(ByteBuffer buf, int at) {
        return buf.get(at + OFF_KIND);
    }

    public static long sequence(ByteBuffer buf, int at) {
        return buf.getLong(at + OFF_SEQUENCE);
    }

    public static long length(ByteBuffer buf, int at) {
        return Integer.toUnsignedLong(buf.getInt(at + OFF_LENGTH));
    }

    public static long wanted(ByteBuffer buf, int at) {
        return Integer.toUnsignedLong(buf.getInt(at + OFF_WANTED));
    }

    public static short flags(ByteBuffer buf, int at) {
        return buf.getShort(at + OFF_FLAGS);
    }

    /** Sets the flags of the header at offset 0 (one-way: {@link #NO_REPLY}). */
    public static void setFlags(ByteBuffer buf, short flags) {
        buf.putShort(OFF_FLAGS, flags);
    }

    public static String requestProblem(ByteBuffer buf) {
        return requestProblem(buf, 0);
    }

    /**
     * The server's header checks, in the order and with the reasons of PROTOCOL.md sections 2
     * and 11 (MARK besides REQUEST and END).
     *
     * @return the rejection reason, or null if the header at offset {@code at} is a valid
     *     REQUEST, END or MARK
     */
    public static String requestProblem(ByteBuffer buf, int at) {
        return requestProblem(buf, at, false);
    }

    /**
     * As {@link #requestProblem(ByteBuffer, int)}; {@code exchangeOnly}: only section 2's rr
     * exchange is served (a load server, 11.5.1), so a MARK is {@code unexpected kind} and
     * NO_REPLY is {@code bad flags}, each at its place in the order of the checks.
     */
    public static String requestProblem(ByteBuffer buf, int at, boolean exchangeOnly) {
        return requestProblem(buf, at, exchangeOnly ? Accepts.EXCHANGE : Accepts.ALL);
    }

    /** As {@link #requestProblem(ByteBuffer, int)} for a server that takes what it says. */
    public static String requestProblem(ByteBuffer buf, int at, Accepts accepts) {
        if (buf.getInt(at + OFF_MAGIC) != MAGIC) {
            return "bad magic";
        }
        if (buf.get(at + OFF_VERSION) != VERSION) {
            return "bad version";
        }
        byte kind = kind(buf, at);
        if (kind != REQUEST && kind != END && (kind != MARK || accepts != Accepts.ALL)) {
            return "unexpected kind";
        }
        if (!flagsAccepted(kind, Short.toUnsignedInt(flags(buf, at)), accepts)) {
            return "bad flags";
        }
        long length = length(buf, at);
        if (length > MAX_PAYLOAD || wanted(buf, at) > MAX_PAYLOAD) {
            return "length too large";
        }
        if (kind == END && length != 0) {
            return "bad end frame";
        }
        if (kind == MARK && (wanted(buf, at) != 0 || length != MARK_PAYLOAD)) {
            return "bad stream frame";
        }
        return null;
    }

    /**
     * Check 4: flags 0, or NO_REPLY on a REQUEST or END; a queue's load server takes only a
     * reply address (0 would leave it nowhere to answer).
     */
    private static boolean flagsAccepted(byte kind, int flags, Accepts accepts) {
        return switch (accepts) {
            case ALL -> flags == 0 || (flags == NO_REPLY && (kind == REQUEST || kind == END));
            case EXCHANGE -> flags == 0;
            case QUEUE_LOAD -> flags >= REPLY_ADDRESS && flags < REPLY_ADDRESS + REPLY_ADDRESSES;
        };
    }

    /** A MARK's message size (u64, may exceed any limit), its header at offset {@code at}. */
    public static long markSize(ByteBuffer buf, int at) {
        return buf.getLong(at + HEADER_SIZE);
    }

    /** A MARK's count of messages that follow it (u64). */
    public static long markCount(ByteBuffer buf, int at) {
        return buf.getLong(at + HEADER_SIZE + 8);
    }

    /**
     * Section 11.1 step 10, once a MARK's payload is in: a message size of 0 or above the
     * server's own limit is {@code bad stream frame}.
     *
     * @return the rejection reason, or null
     */
    public static String markProblem(ByteBuffer buf, int at, int maxMessage) {
        long size = markSize(buf, at);
        return size == 0 || Long.compareUnsigned(size, maxMessage) > 0 ? "bad stream frame" : null;
    }

    /** Writes a whole MARK (header and payload) at offset 0 of buf. */
    public static void writeMark(ByteBuffer buf, long sequence, long messageSize, long count) {
        writeHeader(buf, MARK, sequence, MARK_PAYLOAD, 0);
        buf.putLong(HEADER_SIZE, messageSize);
        buf.putLong(HEADER_SIZE + 8, count);
    }

    /**
     * udp (section 11.1): whether a datagram of {@code size} bytes is a control frame, a
     * well-formed MARK or END header (magic, version, kind, wanted 0, size 24 + length); every
     * other datagram of a stream is a message.
     */
    public static boolean isControl(ByteBuffer buf, int size) {
        if (size < HEADER_SIZE || buf.getInt(OFF_MAGIC) != MAGIC || buf.get(OFF_VERSION) != VERSION) {
            return false;
        }
        byte kind = kind(buf);
        return (kind == MARK || kind == END) && wanted(buf) == 0
                && size == HEADER_SIZE + length(buf);
    }

    /**
     * The client's checks of a RESPONSE or END_ACK header (PROTOCOL.md section 2).
     *
     * @throws PeerException a protocol error naming the first field that differs
     */
    public static void checkReply(ByteBuffer buf, byte kind, long sequence, int length, int wanted)
            throws PeerException {
        String what = switch (kind) {
            case RESPONSE -> "response";
            case MARK_ACK -> "mark_ack";
            default -> "end_ack";
        };
        if (buf.getInt(OFF_MAGIC) != MAGIC) {
            throw mismatch(what, "magic", magicHex(MAGIC), magicHex(buf.getInt(OFF_MAGIC)));
        }
        expect(what, "version", VERSION, Byte.toUnsignedInt(buf.get(OFF_VERSION)));
        expect(what, "kind", kind, Byte.toUnsignedInt(buf.get(OFF_KIND)));
        expect(what, "flags", 0, Short.toUnsignedInt(buf.getShort(OFF_FLAGS)));
        if (buf.getLong(OFF_SEQUENCE) != sequence) {
            throw mismatch(what, "sequence", Long.toUnsignedString(sequence),
                    Long.toUnsignedString(buf.getLong(OFF_SEQUENCE)));
        }
        expect(what, "length", length, buf.getInt(OFF_LENGTH));
        expect(what, "wanted", wanted, buf.getInt(OFF_WANTED));
    }

    private static void expect(String what, String field, int expected, int received)
            throws PeerException {
        if (expected != received) {
            throw mismatch(what, field, Integer.toUnsignedString(expected),
                    Integer.toUnsignedString(received));
        }
    }

    /** The magic as its bytes in wire order, e.g. 4950434c, which is how a reader knows it. */
    private static String magicHex(int littleEndian) {
        return String.format("%08x", Integer.reverseBytes(littleEndian));
    }

    private static PeerException mismatch(String what, String field, String expected, String received) {
        return new PeerException(ErrorKind.PROTOCOL,
                what + " " + field + ": expected " + expected + ", received " + received);
    }
}
