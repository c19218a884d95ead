package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Loopback;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * --java-binding (PROTOCOL.md 4.6): the flag's parsing, a missing library, and real round trips
 * through the JNI library in processes of their own (a JVM fixes its binding once; this test JVM
 * keeps FFM).
 */
class JavaBindingTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    @Test
    void theFlagTakesFfmJniOrJniCopyOnServeAndDrive() throws Exception {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "fifo",
                "--endpoint", "/tmp/d", "--java-binding", "jni"});
        assertEquals(LinuxIpc.Binding.JNI, serve.javaBinding());
        serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "sysv-mq",
                "--endpoint", "auto", "--java-binding", "jni-copy"});
        assertEquals(LinuxIpc.Binding.JNI_COPY, serve.javaBinding());
        DriveOptions drive = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism", "tcp",
                "--endpoint", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--samples-file", "s", "--result-file", "r"});
        assertEquals(LinuxIpc.Binding.FFM, drive.study().javaBinding());
        drive = (DriveOptions) Cli.parse(new String[] {"drive", "--pattern", "stream",
                "--mechanism", "posix-mq", "--endpoint", "posix:/x", "--message-size", "1",
                "--messages", "1", "--samples-file", "s", "--result-file", "r",
                "--java-binding", "jni-copy"});
        assertEquals(LinuxIpc.Binding.JNI_COPY, drive.study().javaBinding());
        for (String value : List.of("JNI", "jni_copy", "copy", "")) {
            UsageException bad = assertThrows(UsageException.class, () -> Cli.parse(new String[] {
                    "serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--java-binding",
                    value}));
            assertEquals("ipclab-peer: usage: --java-binding must be ffm, jni or jni-copy, got '"
                    + value + "'", bad.line());
        }
    }

    /** sysv-shm writes its messages in place: jni-copy has no byte[] to copy there. */
    @Test
    void jniCopyOverSysVShmIsUnsupported() throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        DriveOptions drive = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism",
                "sysv-shm", "--endpoint", "sysv:0x1c1a0001", "--request-size", "1",
                "--response-size", "1", "--iterations", "1", "--samples-file",
                dir.resolve("s").toString(), "--result-file", dir.resolve("r.json").toString(),
                "--java-binding", "jni-copy"});
        assertEquals(7, new Client(drive, err.stream).run(), err.text());
        assertTrue(err.text().contains("jni-copy") && err.text().contains("sysv-shm"), err.text());
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism",
                "sysv-shm", "--endpoint", "auto", "--java-binding", "jni-copy"});
        PeerException e = assertThrows(PeerException.class,
                () -> Servers.open(serve, new Loopback.Diagnostics().stream));
        assertEquals(ErrorKind.UNSUPPORTED, e.kind());
    }

    @Test
    void objectSizesMustBeEqual() {
        UsageException bad = assertThrows(UsageException.class, () -> Cli.parse(new String[] {
                "drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1", "--request-size", "40",
                "--response-size", "41", "--iterations", "1", "--samples-file", "s",
                "--result-file", "r", "--payload", "object"}));
        assertTrue(bad.line().contains("--payload object needs --response-size equal"), bad.line());
    }

    @Test
    void aMissingLibraryIsAnIoErrorNamingItsPath() throws Exception {
        Path missing = dir.resolve("nowhere").resolve(LinuxIpc.JNI_LIBRARY_NAME);
        Process client = start(List.of("-D" + LinuxIpc.JNI_LIBRARY_PROPERTY + "=" + missing),
                "drive", "--mechanism", "sysv-mq", "--endpoint", "sysv:0x1c1a0001",
                "--request-size", "1", "--response-size", "1", "--iterations", "1",
                "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString(), "--java-binding", "jni");
        assertEquals(5, exitCode(client));
        String err = new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(err.startsWith("ipclab-peer: io: --java-binding jni: cannot load " + missing),
                err);
        assertEquals("io", new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve("r.json").toFile()).get("error_kind").asText());
    }

    /**
     * Both sides through JNI (and jni-copy's byte[] calls), frames and objects, over the
     * mechanisms that call the library.
     */
    @ParameterizedTest
    @CsvSource({"jni,sysv-mq,bytes", "jni,sysv-mq,object", "jni,sysv-shm,bytes",
            "jni,sysv-shm,object", "jni,posix-mq,bytes", "jni,fifo,object",
            "jni-copy,sysv-mq,bytes", "jni-copy,sysv-mq,object", "jni-copy,posix-mq,bytes",
            "jni-copy,fifo,object"})
    void roundTripsThroughJni(String binding, String mechanism, String payload) throws Exception {
        assumeTrue(Files.isRegularFile(JavaBinding.library()), "no " + JavaBinding.library()
                + ": build peers/native with a JDK's JNI headers");
        Path endpointDir = Files.createTempDirectory(dir, "endpoint-");
        String endpoint = mechanism.equals("fifo") ? endpointDir.toString() : "auto";
        Process server = start(List.of(), "serve", "--mechanism", mechanism, "--endpoint", endpoint,
                "--java-binding", binding);
        String ready = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(ready != null && ready.startsWith("READY {"), "READY line: " + ready);
        String at = ready.replaceAll(".*\"endpoint\": ?\"([^\"]*)\".*", "$1");
        Process client = start(List.of(), "drive", "--mechanism", mechanism, "--endpoint", at,
                "--request-size", "20000", "--response-size", "20000", "--iterations", "5",
                "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString(), "--payload", payload, "--java-binding", binding);
        assertEquals(0, exitCode(client),
                new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(40, Files.size(dir.resolve("s")));
        server.toHandle().destroy();
        assertEquals(0, exitCode(server));
        assertEquals("", new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /**
     * jni-copy's byte[] path in the stream and short patterns (and one-way), both sides through
     * it; the library's copying entry points are what the client links.
     */
    @ParameterizedTest
    @CsvSource({"sysv-mq,stream", "posix-mq,stream", "sysv-mq,short", "posix-mq,short",
            "posix-mq,one-way"})
    void streamAndShortThroughJniCopy(String mechanism, String pattern) throws Exception {
        assumeTrue(Files.isRegularFile(JavaBinding.library()), "no " + JavaBinding.library()
                + ": build peers/native with a JDK's JNI headers");
        Process server = start(List.of(), "serve", "--mechanism", mechanism, "--endpoint", "auto",
                "--java-binding", "jni-copy");
        String ready = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(ready != null && ready.startsWith("READY {"), "READY line: " + ready);
        String at = ready.replaceAll(".*\"endpoint\": ?\"([^\"]*)\".*", "$1");
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", mechanism,
                "--endpoint", at, "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString(), "--java-binding", "jni-copy"));
        if (pattern.equals("stream")) {
            // 10000 B: each message is a full 8192-byte channel message and a shorter one.
            args.addAll(List.of("--pattern", "stream", "--message-size", "10000", "--messages",
                    "300", "--warmup", "10", "--windows", "5"));
        } else {
            args.addAll(List.of("--pattern", "short", "--request-size", "9000",
                    "--iterations", "5", "--warmup", "2"));
            args.addAll(pattern.equals("one-way") ? List.of("--one-way", "--response-size", "0")
                    : List.of("--response-size", "20000"));
        }
        Process client = start(List.of("-verbose:jni"), args.toArray(String[]::new));
        String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, exitCode(client),
                new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        String send = mechanism.equals("sysv-mq") ? "msgsndCopy" : "mqSendCopy";
        assertTrue(out.contains("JniBinding." + send), "the client sent through " + send);
        assertEquals(40, Files.size(dir.resolve("s")));  // 5 windows or 5 iterations
        server.toHandle().destroy();
        assertEquals(0, exitCode(server));
        assertEquals("", new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private Process start(List<String> jvmFlags, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "--enable-native-access=ALL-UNNAMED"));
        // The library the test checked for, wherever -Ddev.ipclab.linuxipc.jni.library put it.
        command.add("-D" + LinuxIpc.JNI_LIBRARY_PROPERTY + "=" + JavaBinding.library());
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        started.add(process);
        return process;
    }

    private static int exitCode(Process process) throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("process did not exit");
        }
        return process.exitValue();
    }
}
