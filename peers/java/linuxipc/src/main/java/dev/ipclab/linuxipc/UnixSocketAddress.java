package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A Unix domain socket's address: a {@code struct sockaddr_un} and its length in native memory, made once
 * and reused, so {@link UnixDatagramSocket#receiveFrom} and {@link UnixDatagramSocket#sendTo}
 * allocate nothing.
 */
public final class UnixSocketAddress {
    static final int AF_UNIX = 1;
    /** {@code struct sockaddr_un}: a u16 family, then 108 bytes of NUL-terminated path. */
    static final int SOCKADDR_UN_SIZE = 110;
    private static final int PATH_OFFSET = 2;
    private static final int MAX_PATH = SOCKADDR_UN_SIZE - PATH_OFFSET - 1;

    private static final long LENGTH_OFFSET = 112;
    private final MemorySegment storage = Arena.ofAuto().allocate(LENGTH_OFFSET + 4, 8);

    /** An empty holder, to be filled by {@link UnixDatagramSocket#receiveFrom}. */
    public UnixSocketAddress() {}

    /**
     * The address of a filesystem path.
     *
     * @param path the socket's path, at most 107 bytes
     * @return the address
     * @throws LinuxIpcException {@code ENAMETOOLONG} if the path does not fit
     */
    public static UnixSocketAddress of(Path path) throws LinuxIpcException {
        byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_PATH) {
            throw new LinuxIpcException("sockaddr_un " + path, Libc.ENAMETOOLONG);
        }
        UnixSocketAddress address = new UnixSocketAddress();
        address.storage.set(JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(bytes, 0, address.storage, JAVA_BYTE, PATH_OFFSET, bytes.length);
        address.storage.set(JAVA_BYTE, PATH_OFFSET + bytes.length, (byte) 0);
        address.length(PATH_OFFSET + bytes.length + 1);
        return address;
    }

    /**
     * The path this address names ("" for an unnamed socket).
     *
     * @return the path (allocates)
     */
    public String path() {
        int length = length();
        if (length <= PATH_OFFSET) {
            return "";
        }
        byte[] bytes = storage.asSlice(PATH_OFFSET, length - PATH_OFFSET).toArray(JAVA_BYTE);
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    int length() {
        return storage.get(JAVA_INT, LENGTH_OFFSET);
    }

    void length(int length) {
        storage.set(JAVA_INT, LENGTH_OFFSET, length);
    }

    MemorySegment sockaddr() {
        return storage;
    }

    MemorySegment lengthCell() {
        return storage.asSlice(LENGTH_OFFSET, 4);
    }

    @Override
    public String toString() {
        return "UnixSocketAddress[" + path() + "]";
    }
}
