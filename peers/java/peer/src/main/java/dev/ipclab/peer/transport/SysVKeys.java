package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** System V keys with the ipclab tag (PROTOCOL.md section 4.1) and their endpoint form. */
public final class SysVKeys {
    public static final int TAG = 0x1C1A0000;
    static final String PREFIX = "sysv:";
    static final int ATTEMPTS = 100;

    private SysVKeys() {}

    /** Makes the server's objects under a fresh tagged key, drawing again on EEXIST. */
    interface Creator<T> {
        T create(int key) throws IOException;
    }

    static <T> T createTagged(Creator<T> creator) throws IOException {
        return createTagged(creator, 0x10000);
    }

    /** @param bound r is drawn from 1 … bound − 1 (load over sysv-mq: 0x8000, 11.5.5) */
    static <T> T createTagged(Creator<T> creator, int bound) throws IOException {
        for (int i = 0; i < ATTEMPTS; i++) {
            int key = TAG | ThreadLocalRandom.current().nextInt(1, bound);
            try {
                return creator.create(key);
            } catch (LinuxIpcException e) {
                if (e.errno() != LinuxIpcException.EEXIST) {
                    throw e;
                }
            }
        }
        throw new IOException("no free System V key 0x1c1a.... after " + ATTEMPTS + " attempts");
    }

    public static String endpoint(int key) {
        return PREFIX + hex(key);
    }

    /** load over sysv-mq (11.5.5): both keys, the request queue's first, each as above. */
    public static String endpoint(int requestKey, int replyKey) {
        return endpoint(requestKey) + "," + hex(replyKey);
    }

    private static String hex(int key) {
        return String.format(Locale.ROOT, "0x%08x", key);
    }

    /**
     * load over sysv-mq (11.5.5): {@code sysv:0xK,0xK2}.
     *
     * @return the request queue's key, then the reply queue's
     * @throws IllegalArgumentException unless two keys of the single form, comma-separated
     */
    public static int[] parsePair(String endpoint) {
        int comma = endpoint.indexOf(',');
        try {
            if (comma < 0) {
                throw new IllegalArgumentException("no comma");
            }
            return new int[] {parse(endpoint.substring(0, comma)),
                parse(PREFIX + endpoint.substring(comma + 1))};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a load endpoint over sysv-mq must be "
                    + "sysv:0xKEY,0xKEY (request queue, reply queue), got '" + endpoint + "'", e);
        }
    }

    /** @throws IllegalArgumentException unless the endpoint is sysv:0x followed by 8 hex digits */
    public static int parse(String endpoint) {
        if (!endpoint.startsWith(PREFIX + "0x") && !endpoint.startsWith(PREFIX + "0X")) {
            throw new IllegalArgumentException("endpoint must be sysv:0xKEY, got '" + endpoint + "'");
        }
        String hex = endpoint.substring(PREFIX.length() + 2);
        if (hex.isEmpty() || hex.length() > 8 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("endpoint must be sysv:0xKEY (hex), got '" + endpoint + "'");
        }
        return (int) Long.parseLong(hex, 16);
    }

    /** A server endpoint must be auto; a client endpoint the READY form. */
    static void checkServerEndpoint(String endpoint) throws IOException {
        if (!endpoint.equals("auto")) {
            throw new IOException("the server endpoint of this mechanism must be auto, got '"
                    + endpoint + "'");
        }
    }
}
