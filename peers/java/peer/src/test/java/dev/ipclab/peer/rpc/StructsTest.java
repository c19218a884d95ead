package dev.ipclab.peer.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.transport.Numbers;
import org.junit.jupiter.api.Test;

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
}
