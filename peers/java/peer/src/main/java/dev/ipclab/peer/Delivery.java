package dev.ipclab.peer;

import dev.ipclab.peer.frame.PeerException;
import java.util.Map;

/**
 * {@code --delivery} (PROTOCOL.md sections 1 and 4.7): the {@code durable} header of every
 * message an activemq peer sends. Absent (null where it is kept) means non-persistent.
 */
enum Delivery {
    NON_PERSISTENT("non-persistent"),
    PERSISTENT("persistent");

    private final String label;

    Delivery(String label) {
        this.label = label;
    }

    /**
     * @return the flag's value, or null when it is absent
     * @throws IllegalArgumentException a value that is neither (a usage error)
     */
    static Delivery parse(Map<String, String> flags) {
        String value = flags.get("delivery");
        if (value == null) {
            return null;
        }
        for (Delivery d : values()) {
            if (d.label.equals(value)) {
                return d;
            }
        }
        throw new IllegalArgumentException("--delivery must be non-persistent or persistent, got '"
                + value + "'");
    }

    static boolean persistent(Delivery delivery) {
        return delivery == PERSISTENT;
    }

    /**
     * Only a broker's messages have a durable header: given for another mechanism, with either
     * value, the flag is unsupported (section 1).
     *
     * @throws PeerException unsupported
     */
    static void check(Mechanism mechanism, Delivery delivery) throws PeerException {
        if (delivery != null && mechanism != Mechanism.ACTIVEMQ) {
            throw PeerException.unsupported("--delivery is for activemq only, not "
                    + mechanism.label());
        }
    }
}
