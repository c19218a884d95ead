package dev.ipclab.peer.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.transport.Numbers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The structured records of section 10.2 against protocol/vectors. */
class StructsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void structsMatchTheVectors() {
        for (JsonNode vector : Vectors.list("structs")) {
            Structs.Kind kind = Structs.Kind.byLabel(vector.get("kind").asText());
            var record = Structs.generate(kind, Numbers.unsigned(vector.get("seed").asText(), "seed"),
                    vector.get("sequence_length").asInt());
            if (vector.has("sequence")) {
                record = Structs.stamped(record, vector.get("sequence").asLong());
            }
            assertEquals(vector.get("value"), MAPPER.valueToTree(record), vector.toString());
        }
    }

    /**
     * --value-range non-negative: the same draws, each int masked to 31 bits; strings, bools,
     * doubles and sequence lengths are the full range's.
     */
    @ParameterizedTest
    @EnumSource(Structs.Kind.class)
    void nonNegativeMasksTheIntsAndNothingElse(Structs.Kind kind) {
        for (long seed : new long[] {1, 42, -1L}) {
            Map<String, Object> full = new Structs.Records(kind, seed, 50, false, false).next();
            Map<String, Object> masked = new Structs.Records(kind, seed, 50, true, false).next();
            boolean anyNegative = false;
            for (Structs.FieldSpec field : kind.fields()) {
                Object f = full.get(field.name());
                Object m = masked.get(field.name());
                switch (field.type()) {
                    case INT -> {
                        assertEquals((int) f & 0x7FFF_FFFF, (int) m, field.name());
                        anyNegative |= (int) f < 0;
                    }
                    case INT_SEQ -> {
                        List<?> fl = (List<?>) f;
                        List<?> ml = (List<?>) m;
                        assertEquals(fl.size(), ml.size());
                        for (int i = 0; i < fl.size(); i++) {
                            assertEquals((int) fl.get(i) & 0x7FFF_FFFF, (int) ml.get(i));
                            anyNegative |= (int) fl.get(i) < 0;
                        }
                    }
                    default -> assertEquals(f, m, field.name());
                }
            }
            assertEquals(true, anyNegative, "the full range drew a negative int to mask");
        }
    }

    /**
     * --records: one repeats the case's record; per-call draws record k + 1 from where record k
     * left the stream (record 1 is the case's record), the same sequence for the same seed.
     */
    @Test
    void perCallRecordsContinueTheStream() {
        int length = 3;
        Structs.Records one = new Structs.Records(Structs.Kind.SMALL, 7, length, false, false);
        Map<String, Object> first = one.next();
        assertEquals(Structs.generate(Structs.Kind.SMALL, 7, length), first);
        assertSame(first, one.next());

        Structs.Records perCall = new Structs.Records(Structs.Kind.SMALL, 7, length, false, true);
        assertEquals(first, perCall.next());
        Map<String, Object> second = perCall.next();
        assertNotEquals(first, second);
        // Small draws n1, n2, s1 (its length, then each character), b1, then li1's elements.
        int draws = 2 + 1 + ((String) first.get("s1")).length() + 1 + length;
        Payload.SplitMix random = new Payload.SplitMix(7, Payload.STRUCT_STREAM);
        for (int i = 0; i < draws; i++) {
            random.next();
        }
        assertEquals((int) random.next(), second.get("n1"));
        Structs.Records again = new Structs.Records(Structs.Kind.SMALL, 7, length, false, true);
        again.next();
        assertEquals(second, again.next());
        assertEquals(perCall.next(), again.next());
    }
}
