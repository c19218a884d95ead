package dev.ipclab.peer;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.PrintStream;

/** The server's one stdout line, printed once its endpoint accepts clients (section 5). */
record Ready(String endpoint, String mechanism, String language, String runtime, long pid,
        int contract) {
    static Ready of(String endpoint, String mechanism) {
        return new Ready(endpoint, mechanism, PeerInfo.LANGUAGE, PeerInfo.RUNTIME, PeerInfo.pid(),
                PeerInfo.CONTRACT);
    }

    String line() {
        try {
            return "READY " + Json.MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a record of strings and a number is always JSON", e);
        }
    }

    void print(PrintStream out) {
        out.println(line());
        out.flush();
    }
}
