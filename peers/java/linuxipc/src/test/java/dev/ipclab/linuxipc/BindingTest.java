package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The binding the run asked for is the one in use, and it cannot change once fixed. */
class BindingTest {
    private static LinuxIpc.Binding requested() {
        return LinuxIpc.Binding.of(System.getProperty(LinuxIpc.BINDING_PROPERTY, "ffm"));
    }

    @Test
    void theRequestedBindingIsInUse() {
        assertEquals(requested(), LinuxIpc.binding());
        assertEquals(requested().label(), Native.BINDING.name());
    }

    @Test
    void theBindingCannotChangeOnceFixed() {
        LinuxIpc.binding();
        if (requested() != LinuxIpc.Binding.FFM) {
            assertThrows(IllegalStateException.class, () -> LinuxIpc.use(LinuxIpc.Binding.FFM, null));
        } else {
            // Loading a missing JNI library fails before any change, naming the path.
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                    () -> LinuxIpc.use(LinuxIpc.Binding.JNI, Path.of("/nonexistent/libx.so")));
            assertEquals(true, e.getMessage().contains("/nonexistent/libx.so"), e.getMessage());
        }
        assertEquals(requested(), LinuxIpc.binding());
    }

    @Test
    void aBadBindingNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> LinuxIpc.Binding.of("JNI"));
        assertThrows(IllegalArgumentException.class, () -> LinuxIpc.Binding.of("jni_copy"));
        for (LinuxIpc.Binding binding : LinuxIpc.Binding.values()) {
            assertEquals(binding, LinuxIpc.Binding.of(binding.label()));
        }
    }

    /** jni-copy is the JNI binding but for the byte[] message calls (its class says so). */
    @Test
    void jniCopyIsTheJniBindingWithCopyingMessageCalls() {
        if (requested() == LinuxIpc.Binding.JNI_COPY) {
            assertEquals(JniCopyBinding.class, Native.BINDING.getClass());
            assertTrue(Native.BINDING instanceof JniBinding);
        }
    }

    @Test
    void failuresCarryTheErrnoThroughEitherBinding() {
        LinuxIpcException e = assertThrows(LinuxIpcException.class,
                () -> SysVMessageQueue.open(0x1C1A0000 | 0xFFFF));
        assertEquals(LinuxIpcException.ENOENT, e.errno());
    }
}
