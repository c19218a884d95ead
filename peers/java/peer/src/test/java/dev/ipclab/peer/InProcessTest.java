package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** --jni-arrays copy: callCopy's response is call's, and it rejects a wrong stamp as call does. */
    @ParameterizedTest(name = "{0} B -> {1} B")
    @org.junit.jupiter.params.provider.CsvSource({"16,300", "0,0", "3,5", "16,1048576",
            "1048577,7"})
    void jniCopyAnswersAsCallDoes(int requestSize, int responseSize) throws Throwable {
        InProcess.Call copy = NativeCall.jniCopy(library(), 9, requestSize, responseSize);
        byte[] request = stamped(9, Payload.REQUEST_STREAM, requestSize, 5);
        byte[] response = copy.call(request, responseSize, 9, 5);
        assertArrayEquals(stamped(9, Payload.RESPONSE_STREAM, responseSize, 5), response);
        assertArrayEquals(NativeCall.call(request, responseSize, 9, 5), response);
        assertTrue(response != copy.call(request, responseSize, 9, 5), "a new array each call");
        if (requestSize > 0) {
            assertNull(copy.call(request, responseSize, 9, 6));
            request[0] ^= 1;
            assertNull(copy.call(request, responseSize, 9, 5));
        }
    }

    @Test
    void jniArraysCopyRunsThroughTheClient() throws Exception {
        DriveOptions options = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism",
            "jni", "--endpoint", "inproc", "--native-library", library(), "--request-size", "100",
            "--response-size", "70000", "--iterations", "20", "--warmup", "3", "--samples-file",
            dir.resolve("s").toString(), "--result-file", dir.resolve("r.json").toString(),
            "--jni-arrays", "copy"});
        assertTrue(options.study().jniArraysCopy());
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(0, new Client(options, err.stream).run(), err.text());
        assertEquals(20, RoundTripTest.samples(options).length);
    }

    /** The thesis's Mock: a new zero-filled array per call, checked for its length only. */
    @Test
    void mockNewArrayIsANewArrayOfZerosPerCall() throws Throwable {
        InProcess.Call mock = InProcess.newArray(null, 9, 16, 300);
        byte[] a = mock.call(stamped(9, Payload.REQUEST_STREAM, 16, 5), 300, 9, 5);
        byte[] b = mock.call(stamped(9, Payload.REQUEST_STREAM, 16, 6), 300, 9, 6);
        assertArrayEquals(new byte[300], a);
        assertTrue(a != b);
        assertEquals(0, mock.call(new byte[0], 0, 9, 7).length);
        DriveOptions options = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism",
            "none", "--endpoint", "inproc", "--request-size", "16", "--response-size", "4096",
            "--iterations", "20", "--warmup", "3", "--samples-file", dir.resolve("s").toString(),
            "--result-file", dir.resolve("r.json").toString(), "--mock", "new-array"});
        assertTrue(options.study().mockNewArray());
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(0, new Client(options, err.stream).run(), err.text());
        assertEquals("ok", RoundTripTest.result(options).get("status").asText());
        assertEquals(20, RoundTripTest.samples(options).length);
    }

    /** Each flag's non-default value is its mechanism's alone; a bad value is a usage error. */
    @Test
    void mockAndJniArraysRules() throws Exception {
        for (String[] flag : new String[][] {{"--mock", "new-array", "none"},
                {"--jni-arrays", "copy", "jni"}}) {
            for (String m : List.of("none", "jni", "ffm", "tcp")) {
                String[] args = {"drive", "--mechanism", m, "--endpoint",
                    m.equals("tcp") ? "127.0.0.1:9" : "inproc", "--native-library", library(),
                    "--request-size", "8", "--response-size", "8", "--iterations", "1",
                    "--samples-file", dir.resolve("s").toString(), "--result-file",
                    dir.resolve("r.json").toString(), flag[0], flag[1]};
                Loopback.Diagnostics err = new Loopback.Diagnostics();
                int code = new Client((DriveOptions) Cli.parse(args), err.stream).run();
                if (m.equals(flag[2])) {
                    assertEquals(0, code, err.text());
                } else {
                    assertEquals(7, code, flag[0] + " over " + m + ": " + err.text());
                    assertTrue(err.text().contains(flag[0] + " " + flag[1] + " is for mechanism "
                            + flag[2] + " only"), err.text());
                }
            }
        }
        String[] base = {"drive", "--mechanism", "none", "--endpoint", "inproc",
            "--request-size", "8", "--response-size", "8", "--iterations", "1",
            "--samples-file", "/tmp/s", "--result-file", "/tmp/r"};
        DriveOptions defaults = (DriveOptions) Cli.parse(base);
        assertFalse(defaults.study().mockNewArray());
        assertFalse(defaults.study().jniArraysCopy());
        for (String[] given : new String[][] {{"--mock", "copy"}, {"--jni-arrays", "critical"}}) {
            assertEquals(defaults, Cli.parse(with(base, given)), "the default is today's");
        }
        for (String[] bad : new String[][] {{"--mock", "new"}, {"--mock", ""},
                {"--jni-arrays", "Copy"}, {"--jni-arrays", "elements"}}) {
            UsageException e = assertThrows(UsageException.class, () -> Cli.parse(with(base, bad)));
            assertTrue(e.line().startsWith("ipclab-peer: usage: " + bad[0] + " must be "), e.line());
        }
    }

    private static String[] with(String[] base, String... more) {
        String[] args = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        return args;
    }

    private static byte[] stamped(long seed, int stream, int n, long sequence) {
        ByteBuffer buf = Payload.base(seed, stream, n);
        Payload.stamp(buf, 0, n, Payload.head(seed, stream), sequence);
        byte[] out = new byte[n];
        buf.get(0, out);
        return out;
    }
}
