package dev.ipclab.linuxipc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Starts a test main class in a new JVM with the test class path. */
final class ChildJvm {
    private ChildJvm() {}

    /**
     * @param withoutIpcOwner run the child without CAP_IPC_OWNER, so that System V permissions
     *     apply to it even as root; it stays the same user, so it reads the class path wherever
     *     the checkout is (a user such as nobody cannot enter a private 0700 clone)
     */
    static Process start(boolean withoutIpcOwner, Class<?> main, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                System.getProperty("java.home") + "/bin/java");
        String classPath = System.getProperty("surefire.test.class.path",
                System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>();
        if (withoutIpcOwner) {
            command.addAll(List.of("setpriv", "--bounding-set=-ipc_owner"));
        }
        command.addAll(List.of(java, "-XX:-UsePerfData", "-XX:+UseSerialGC", "-Xshare:auto",
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath));
        // The child uses the binding of the run (pom.xml: one run per binding).
        for (String property : List.of(LinuxIpc.BINDING_PROPERTY, LinuxIpc.JNI_LIBRARY_PROPERTY)) {
            String value = System.getProperty(property);
            if (value != null) {
                command.add("-D" + property + "=" + value);
            }
        }
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).start();
    }
}
