package dev.ipclab.peer.server;

import java.util.Optional;

/** {@code serve --fault} (PROTOCOL.md sections 6 and 11.1): what a server gets wrong on purpose. */
public enum Fault {
    NONE("none"),
    /** Every RESPONSE's last payload byte XOR 0x01. */
    FLIP_RESPONSE_BYTE("flip-response-byte"),
    /** The second measured stream message is left out of the count and the checksum. */
    DROP_STREAM_MESSAGE("drop-stream-message"),
    /** The second measured stream message's last byte gets its low bit flipped. */
    FLIP_STREAM_BYTE("flip-stream-byte"),
    /** A load server's stall (11.5.1): the C++ peer's only; known here to answer unsupported. */
    STALL("stall"),
    /** A load server's {@code capacity:N} (11.5.1, N >= 1): likewise the C++ peer's only. */
    CAPACITY("capacity");

    private final String label;

    Fault(String label) {
        this.label = label;
    }

    public static Optional<Fault> byName(String name) {
        if (name.startsWith("capacity:")) {
            String tokens = name.substring("capacity:".length());
            return tokens.matches("[0-9]+") && !tokens.matches("0+") ? Optional.of(CAPACITY)
                    : Optional.empty();
        }
        if (name.equals(CAPACITY.label)) {
            return Optional.empty(); // only with its rate
        }
        for (Fault f : values()) {
            if (f.label.equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    public String label() {
        return label;
    }

    /** The load servers' faults (11.5.1), which only the C++ peer injects. */
    public boolean loadOnly() {
        return this == STALL || this == CAPACITY;
    }
}
