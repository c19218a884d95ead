package dev.ipclab.peer.rpc;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz targets for the structured payloads a REST server decodes (protocol/idl/rest.md): a
 * record's JSON body (/echo/KIND and /put/KIND) and the JSON form of bytes ({"data": base64}).
 * Bad bodies are IllegalArgumentException (the server's 400); anything else thrown is a
 * finding. `mvn test` replays src/test/resources/dev/ipclab/peer/rpc/RecordFuzzTestInputs/.
 */
class RecordFuzzTest {
    private static final Structs.Kind[] KINDS = Structs.Kind.values();

    /**
     * The input's first byte picks the record kind (small, medium, large) and the n2 flip of
     * --fault flip-response-byte; the rest is the body.
     */
    @FuzzTest
    void record(byte[] input) {
        if (input.length == 0) {
            return;
        }
        Structs.Kind kind = KINDS[Byte.toUnsignedInt(input[0]) % KINDS.length];
        int flip = input[0] < 0 ? 1 : 0;
        byte[] echoed;
        try {
            echoed = RestServer.echo(kind, body(input), flip);
        } catch (IllegalArgumentException e) {
            return;  // a 400
        }
        // The answer is JSON again (a client reads it with the same mapper).
        try {
            RestServer.MAPPER.readTree(echoed);
        } catch (java.io.IOException e) {
            throw new AssertionError("echo answered with no JSON: " + e.getMessage(), e);
        }
    }

    /** The JSON form of bytes, as a server reads a request and a client a reply. */
    @FuzzTest
    void bytesBody(byte[] input) {
        try {
            RestBody.decode(input, true);
        } catch (IllegalArgumentException e) {
            // a 400 at the server, a protocol error at the client (RestClients)
        }
    }

    private static byte[] body(byte[] input) {
        return java.util.Arrays.copyOfRange(input, 1, input.length);
    }
}
