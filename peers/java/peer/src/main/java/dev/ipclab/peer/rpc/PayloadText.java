package dev.ipclab.peer.rpc;

import java.nio.charset.StandardCharsets;

/**
 * {@code callString} (PROTOCOL.md 10.1, --corba-payload string): each payload byte {@code b}
 * travels as the character {@code ALPHABET[b mod 62]} of 10.2's alphabet, so the text has the
 * payload's length, no NUL and only ASCII.
 */
final class PayloadText {
    private static final byte[] ALPHABET = Structs.ALPHABET.getBytes(StandardCharsets.US_ASCII);

    private PayloadText() {}

    /** The text a payload travels as. */
    static String of(byte[] payload) {
        byte[] text = new byte[payload.length];
        for (int i = 0; i < payload.length; i++) {
            text[i] = ALPHABET[(payload[i] & 0xFF) % ALPHABET.length];
        }
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    /**
     * @return the first offset where {@code text} differs from the text of {@code expected};
     *     the shorter length if only the lengths differ; -1 if equal
     */
    static long firstMismatch(byte[] expected, String text) {
        int common = Math.min(expected.length, text.length());
        for (int i = 0; i < common; i++) {
            if (text.charAt(i) != ALPHABET[(expected[i] & 0xFF) % ALPHABET.length]) {
                return i;
            }
        }
        return expected.length == text.length() ? -1 : common;
    }
}
