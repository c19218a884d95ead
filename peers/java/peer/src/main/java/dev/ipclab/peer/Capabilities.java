package dev.ipclab.peer;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.ipclab.peer.burst.ServerModel;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code capabilities} (PROTOCOL.md section 1): what this peer implements, one JSON line on
 * stdout, generated from {@link Mechanism} and {@link Pattern}, the tables its dispatch reads.
 */
record Capabilities() implements Command {
    /**
     * One mechanism's entry; field names become snake_case; no server or load models, no
     * library: left out.
     */
    record Entry(List<String> roles, List<String> patterns, int maxPayload,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> serverModels,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> loadModels,
            @JsonInclude(JsonInclude.Include.NON_NULL) String library) {}

    /** The answer, in the contract's field order. */
    record Answer(int contract, String language, String runtime, Map<String, Entry> mechanisms) {}

    static Answer answer() {
        Map<String, Entry> mechanisms = new LinkedHashMap<>();
        for (Mechanism m : Mechanism.values()) {
            if (m.unavailable() != null) {
                continue; // its library is missing here (libzmq): not offered
            }
            List<String> roles = new ArrayList<>();
            if (m.serves()) {
                roles.add(Cli.SERVE);
            }
            roles.add(Cli.DRIVE);
            mechanisms.put(m.label(), new Entry(roles,
                    m.patterns().stream().map(Pattern::label).toList(), m.maxPayload(),
                    m.serverModels().stream().map(ServerModel::label).toList(),
                    m.loadModelNames(), m.library()));
        }
        return new Answer(PeerInfo.CONTRACT, PeerInfo.LANGUAGE, PeerInfo.RUNTIME, mechanisms);
    }

    /** @return the exit code, 0 */
    int print(PrintStream out) {
        try {
            out.println(Json.MAPPER.writeValueAsString(answer()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("records of strings, lists and numbers are always JSON", e);
        }
        out.flush();
        return 0;
    }
}
