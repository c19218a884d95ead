package dev.ipclab.peer.frame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.StreamSupport;

/** protocol/vectors/vectors.json, located by the ipclab.vectors property that surefire sets. */
public final class Vectors {
    private static final JsonNode ROOT = load();

    private Vectors() {}

    public static List<JsonNode> list(String name) {
        return StreamSupport.stream(ROOT.get(name).spliterator(), false).toList();
    }

    public static JsonNode root() {
        return ROOT;
    }

    public static byte[] hex(JsonNode node, String field) {
        return HexFormat.of().parseHex(node.get(field).asText());
    }

    /** A u64 field that JSON holds as a (possibly > 2^63) integer. */
    public static long u64(JsonNode node, String field) {
        return new BigInteger(node.get(field).asText()).longValue();
    }

    public static long fnv1a64(ByteBuffer data) {
        long hash = 0xcbf29ce484222325L;
        for (int i = data.position(); i < data.limit(); i++) {
            hash = (hash ^ (data.get(i) & 0xff)) * 0x100000001b3L;
        }
        return hash;
    }

    public static byte[] bytes(ByteBuffer buf, int offset, int length) {
        byte[] out = new byte[length];
        buf.get(offset, out);
        return out;
    }

    private static JsonNode load() {
        String file = System.getProperty("ipclab.vectors");
        if (file == null) {
            throw new IllegalStateException("system property ipclab.vectors is not set (run through mvn)");
        }
        try {
            return new ObjectMapper().readTree(Path.of(file).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
