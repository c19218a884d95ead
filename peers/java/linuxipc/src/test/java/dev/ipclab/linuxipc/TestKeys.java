package dev.ipclab.linuxipc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Tagged keys and names for tests, and the removal of everything a test made. */
final class TestKeys implements AutoCloseable {
    static final int TAG = 0x1C1A0000;

    private final List<Runnable> cleanups = new ArrayList<>();

    /** A key 0x1C1A0000 | r, r random 16-bit other than 0. */
    static int key() {
        return TAG | ThreadLocalRandom.current().nextInt(1, 0x10000);
    }

    /** A POSIX name with the ipclab tag, unique to this process and call. */
    static String name() {
        return "/ipclab-" + ProcessHandle.current().pid() + "-test"
                + ThreadLocalRandom.current().nextInt(1 << 30);
    }

    <T> T track(T object, IpcAction remove) {
        cleanups.add(() -> {
            try {
                remove.run();
            } catch (Exception e) {
                // already removed by the test
            }
        });
        return object;
    }

    SysVMessageQueue track(SysVMessageQueue q) {
        return track(q, q::remove);
    }

    SysVSemaphoreSet track(SysVSemaphoreSet s) {
        return track(s, s::remove);
    }

    SysVSharedMemory track(SysVSharedMemory m) {
        return track(m, () -> {
            m.detach();
            m.remove();
        });
    }

    void unlinkMq(String name) {
        track(name, () -> PosixMessageQueue.unlink(name));
    }

    void unlinkShm(String name) {
        track(name, () -> PosixSharedMemory.unlink(name));
    }

    @Override
    public void close() {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).run();
        }
        cleanups.clear();
    }

    interface IpcAction {
        void run() throws Exception;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
