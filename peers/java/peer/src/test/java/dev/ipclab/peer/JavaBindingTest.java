package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ipclab.linuxipc.LinuxIpc;
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
    void theFlagTakesJniOrFfmOnServeAndDrive() throws Exception {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "fifo",
                "--endpoint", "/tmp/d", "--java-binding", "jni"});
        assertTrue(serve.jniBinding());
        DriveOptions drive = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism", "tcp",
                "--endpoint", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--samples-file", "s", "--result-file", "r"});
        assertFalse(drive.study().jniBinding());
        UsageException bad = assertThrows(UsageException.class, () -> Cli.parse(new String[] {
                "serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--java-binding", "JNI"}));
        assertEquals("ipclab-peer: usage: --java-binding must be ffm or jni, got 'JNI'", bad.line());
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

    /** Both sides through JNI, frames and objects, over the mechanisms that call the library. */
    @ParameterizedTest
    @CsvSource({"sysv-mq,bytes", "sysv-mq,object", "sysv-shm,bytes", "sysv-shm,object",
            "posix-mq,bytes", "fifo,object"})
    void roundTripsThroughJni(String mechanism, String payload) throws Exception {
        assumeTrue(Files.isRegularFile(JavaBinding.library()), "no " + JavaBinding.library()
                + ": build peers/native with a JDK's JNI headers");
        Path endpointDir = Files.createTempDirectory(dir, "endpoint-");
        String endpoint = mechanism.equals("fifo") ? endpointDir.toString() : "auto";
        Process server = start(List.of(), "serve", "--mechanism", mechanism, "--endpoint", endpoint,
                "--java-binding", "jni");
        String ready = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(ready != null && ready.startsWith("READY {"), "READY line: " + ready);
        String at = ready.replaceAll(".*\"endpoint\": ?\"([^\"]*)\".*", "$1");
        Process client = start(List.of(), "drive", "--mechanism", mechanism, "--endpoint", at,
                "--request-size", "20000", "--response-size", "20000", "--iterations", "5",
                "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString(), "--payload", payload, "--java-binding", "jni");
        assertEquals(0, exitCode(client),
                new String(client.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(40, Files.size(dir.resolve("s")));
        server.toHandle().destroy();
        assertEquals(0, exitCode(server));
        assertEquals("", new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private Process start(List<String> jvmFlags, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "--enable-native-access=ALL-UNNAMED"));
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
