package dev.ipclab.peer;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.PrintStream;

/**
 * The server's one stdout line, printed once its endpoint accepts clients (section 5); a burst
 * server adds {@code server_model} (section 11.4), a Redis or NATS responder {@code broker} (its
 * server's version, 4.10, 4.11); other servers leave them out.
 */
record Ready(String endpoint, String mechanism, String language, String runtime, long pid,
        int contract, @JsonInclude(JsonInclude.Include.NON_NULL) String serverModel,
        @JsonInclude(JsonInclude.Include.NON_NULL) String broker) {
    static Ready of(String endpoint, String mechanism) {
        return of(endpoint, mechanism, null, null);
    }

    static Ready of(String endpoint, String mechanism, String serverModel, String broker) {
        return new Ready(endpoint, mechanism, PeerInfo.LANGUAGE, PeerInfo.RUNTIME, PeerInfo.pid(),
                PeerInfo.CONTRACT, serverModel, broker);
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
