package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.inprocess.InProcess;
import dev.ipclab.peer.server.Loopback;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * none, jni, ffm (PROTOCOL.md section 4.4). jni and ffm call the project's real
 * libipclab_native.so (system property ipclab.native.library, set by the pom); if it is missing
 * these tests fail: build peers/native first ({@code make test} does).
 */
class InProcessTest {
    @TempDir
    Path dir;

    static String library() {
        String path = System.getProperty("ipclab.native.library");
        if (path == null || !Files.isRegularFile(Path.of(path))) {
            fail("libipclab_native.so not found at " + path + ": build peers/native first "
                    + "(make build, or cmake --build peers/native/build), or pass -Dnative.library=PATH");
        }
        return path;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Mechanism m : List.of(Mechanism.NONE, Mechanism.JNI, Mechanism.FFM)) {
            for (int[] sizes : new int[][] {{0, 0}, {16, 16}, {3, 5}, {16, 1 << 20}, {(1 << 20) + 1, 7}}) {
                cases.add(Arguments.of(m, sizes[0], sizes[1]));
            }
        }
        return cases.stream();
    }

    /** The call of one mechanism, without the loop around it. */
    private static InProcess.Call callOf(Mechanism m, String library, long seed, int requestSize,
            int responseSize) throws PeerException {
        return switch (m) {
            case NONE -> InProcess.own(library, seed, requestSize, responseSize);
            case JNI -> NativeCall.jni(library, seed, requestSize, responseSize);
            case FFM -> InProcess.ffm(library, seed, requestSize, responseSize);
            default -> throw new IllegalArgumentException(m.label() + " is not in-process");
        };
    }

    private DriveOptions options(Mechanism m, int requestSize, int responseSize, String library) {
        return new DriveOptions(m.label(), Mechanism.INPROC, "rr", requestSize, responseSize, 3, 20,
                dir.resolve("s"), dir.resolve("r.json"), 42, 5_000_000_000L,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS, library);
    }

    @ParameterizedTest(name = "{0} {1} B -> {2} B")
    @MethodSource("cases")
    void roundTripsAreValidatedAndRecorded(Mechanism m, int requestSize, int responseSize)
            throws Exception {
        String library = m == Mechanism.NONE ? null : library();
        DriveOptions options = options(m, requestSize, responseSize, library);
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(0, new Client(options, err.stream).run(), err.text());
        assertEquals("ok", RoundTripTest.result(options).get("status").asText());
        assertEquals(20, RoundTripTest.samples(options).length);
        for (long sample : RoundTripTest.samples(options)) {
            assertTrue(sample >= 0);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"NONE", "JNI", "FFM"})
    void responseIsTheStampedPayload(Mechanism m) throws Throwable {
        String library = m == Mechanism.NONE ? null : library();
        InProcess.Call call = callOf(m, library, 9, 16, 300);
        byte[] request = stamped(9, Payload.REQUEST_STREAM, 16, 5);
        byte[] response = call.call(request, 300, 9, 5);
        assertArrayEquals(stamped(9, Payload.RESPONSE_STREAM, 300, 5), response);
    }

    @ParameterizedTest
    @EnumSource(names = {"JNI", "FFM"})
    void aWrongStampIsRejectedByTheLibrary(Mechanism m) throws Throwable {
        InProcess.Call call = callOf(m, library(), 9, 16, 16);
        byte[] request = stamped(9, Payload.REQUEST_STREAM, 16, 5);
        assertNull(call.call(request, 16, 9, 6));
        request[0] ^= 1;
        assertNull(call.call(request, 16, 9, 5));
        request[0] ^= 1;
        assertNotNull(call.call(request, 16, 9, 5));
    }

    @Test
    void jniReturnsANewArrayEachCall() throws Throwable {
        InProcess.Call call = callOf(Mechanism.JNI, library(), 1, 8, 8);
        byte[] a = call.call(stamped(1, 1, 8, 0), 8, 1, 0);
        byte[] b = call.call(stamped(1, 1, 8, 1), 8, 1, 1);
        assertTrue(a != b);
    }

    @ParameterizedTest
    @EnumSource(names = {"JNI", "FFM"})
    void aMissingLibraryIsAnIoError(Mechanism m) throws Exception {
        DriveOptions options = options(m, 16, 16, dir.resolve("nope.so").toString());
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, new Client(options, err.stream).run(), err.text());
        assertTrue(err.text().contains("nope.so"), err.text());
    }

    @Test
    void cliRules() throws Exception {
        String[] jniWithout = {"drive", "--mechanism", "jni", "--endpoint", "inproc",
            "--request-size", "1", "--response-size", "1", "--iterations", "1",
            "--samples-file", "/tmp/s", "--result-file", "/tmp/r"};
        assertThrows(UsageException.class, () -> Cli.parse(jniWithout));
        String[] noneWrongEndpoint = jniWithout.clone();
        noneWrongEndpoint[2] = "none";
        noneWrongEndpoint[4] = "auto";
        assertThrows(UsageException.class, () -> Cli.parse(noneWrongEndpoint));
        noneWrongEndpoint[4] = "inproc";
        assertNull(((DriveOptions) Cli.parse(noneWrongEndpoint)).nativeLibrary());
        String[] ffm = new String[jniWithout.length + 2];
        System.arraycopy(jniWithout, 0, ffm, 0, jniWithout.length);
        ffm[2] = "ffm";
        ffm[ffm.length - 2] = "--native-library";
        ffm[ffm.length - 1] = "/x/lib.so";
        assertEquals("/x/lib.so", ((DriveOptions) Cli.parse(ffm)).nativeLibrary());
        for (String m : List.of("none", "jni", "ffm")) {
            // Main.run would install the serve shutdown hook in the test JVM: check its parts.
            ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", m,
                "--endpoint", "auto"});
            PeerException e = assertThrows(PeerException.class,
                    () -> Servers.open(serve, new Loopback.Diagnostics().stream));
            assertEquals(ErrorKind.UNSUPPORTED, e.kind());
        }
    }

    private static byte[] stamped(long seed, int stream, int n, long sequence) {
        ByteBuffer buf = Payload.base(seed, stream, n);
        Payload.stamp(buf, 0, n, Payload.head(seed, stream), sequence);
        byte[] out = new byte[n];
        buf.get(0, out);
        return out;
    }
}
