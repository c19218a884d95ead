package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import dev.ipclab.peer.transport.SysVKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What a server must not leave behind once it has ended: files, System V and POSIX objects. */
final class Leftovers {
    private Leftovers() {}

    /**
     * @param endpoint the server's READY endpoint
     * @param pid the server's process, which names its POSIX objects
     */
    static void assertNone(Mechanism mechanism, String endpoint, long pid) throws IOException {
        switch (mechanism) {
            case SYSV_MQ, SYSV_SHM -> {
                String key = Integer.toString(SysVKeys.parse(endpoint));
                for (String kind : List.of("msg", "shm", "sem")) {
                    assertEquals(null, sysvipcLine(kind, key), kind + " " + endpoint + " left");
                }
            }
            case POSIX_MQ -> {
                String name = endpoint.substring("posix:".length());
                for (String suffix : List.of("-1", "-2")) {
                    LinuxIpcException e = assertThrows(LinuxIpcException.class,
                            () -> PosixMessageQueue.open(name + suffix, PosixMessageQueue.O_RDONLY));
                    assertEquals(LinuxIpcException.ENOENT, e.errno());
                }
            }
            case UDS, UDS_DGRAM -> assertFalse(Files.exists(Path.of(endpoint)), endpoint + " left");
            case ZMQ_IPC, NNG_IPC -> {
                for (String file : List.of(endpoint, endpoint + ".stream")) {
                    assertFalse(Files.exists(Path.of(file)), file + " left");
                }
            }
            case FIFO, FILE, FILE_POLL -> {
                try (Stream<Path> files = Files.list(Path.of(endpoint))) {
                    assertEquals(List.of(), files.toList());
                }
            }
            default -> { } // tcp, udp: nothing on disk; shm: its /dev/shm object, below
        }
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            String mine = "ipclab-" + pid;
            assertFalse(shm.anyMatch(p -> p.getFileName().toString().startsWith(mine)));
        }
    }

    /**
     * After a load server over a message queue (11.5.5) and its client: both System V queues, or
     * the POSIX request queue and every connection's reply queue, are gone.
     */
    static void assertNoLoadQueues(String mechanism, String endpoint, int clients)
            throws IOException {
        if (mechanism.equals(Mechanism.SYSV_MQ.label())) {
            for (int key : SysVKeys.parsePair(endpoint)) {
                assertEquals(null, sysvipcLine("msg", Integer.toString(key)), endpoint + " left");
            }
            return;
        }
        String name = endpoint.substring("posix:".length());
        List<String> names = new java.util.ArrayList<>(List.of(name + "-1"));
        for (int c = 0; c < clients; c++) {
            names.add(name + "-r" + c);
        }
        for (String queue : names) {
            LinuxIpcException e = assertThrows(LinuxIpcException.class,
                    () -> PosixMessageQueue.open(queue, PosixMessageQueue.O_RDONLY), queue);
            assertEquals(LinuxIpcException.ENOENT, e.errno(), queue);
        }
    }

    /** The /proc/sysvipc line of the object of this kind (msg, shm, sem) and key, or null. */
    static String sysvipcLine(String kind, String decimalKey) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/sysvipc/" + kind))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 2 && f[0].equals(decimalKey)) {
                return line;
            }
        }
        return null;
    }
}
