package dev.ipclab.peer.transport;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The addresses of a message library server's two sockets (ZeroMQ 4.8, NNG 4.9): the request
 * socket (REP: rr's frames, a stream's MARK and END) and the stream socket (PULL: a stream's
 * messages). Over tcp READY names both, {@code tcp://HOST:P1,tcp://HOST:P2}, and a client dials
 * what READY said; over ipc both are derived from the server's PATH: {@code ipc://PATH} and
 * {@code ipc://PATH.stream}, refused if either file exists and removed when the server ends.
 */
public record SocketPair(String requests, String stream) {
    static final String TCP = "tcp://";
    static final String IPC = "ipc://";
    private static final String STREAM_SUFFIX = ".stream";

    /**
     * A server's {@code HOST:PORT}, or a client's {@code tcp://HOST:P1,tcp://HOST:P2} (READY's).
     *
     * @throws IllegalArgumentException if it is not of that form
     */
    public static void checkTcp(String endpoint, boolean drive) {
        if (!drive) {
            Endpoints.hostPort(endpoint);
        } else {
            tcp(endpoint);
        }
    }

    /** A client's tcp endpoint, READY's two addresses. */
    static SocketPair tcp(String endpoint) {
        String[] parts = endpoint.split(",", -1);
        String form = "a client's endpoint is READY's tcp://HOST:PORT,tcp://HOST:PORT, got '"
                + endpoint + "'";
        if (parts.length != 2) {
            throw new IllegalArgumentException(form);
        }
        for (String part : parts) {
            if (!part.startsWith(TCP) || Endpoints.hostPort(part.substring(TCP.length())).port() == 0) {
                throw new IllegalArgumentException(form);
            }
        }
        return new SocketPair(parts[0], parts[1]);
    }

    /** Both ipc addresses of the server's PATH. */
    static SocketPair ipc(String path) {
        return new SocketPair(IPC + path, IPC + path + STREAM_SUFFIX);
    }

    /** {@code tcp://HOST:} of a server's {@code HOST:PORT}, an IPv6 host in brackets. */
    static String tcpPrefix(Endpoints.HostPort at) {
        String host = at.host().contains(":") ? "[" + at.host() + "]" : at.host();
        return TCP + host + ":";
    }

    /**
     * The two socket files of an ipc server at path, PATH and PATH.stream, refused if either
     * exists: the libraries would take over (or replace) a stale one.
     */
    static List<Path> ipcFiles(String path) throws FileAlreadyExistsException {
        List<Path> files = List.of(Path.of(path), Path.of(path + STREAM_SUFFIX));
        for (Path file : files) {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(file.toString(), null, "path exists");
            }
        }
        return files;
    }

    /** Removes the files, each failure added to failure (if there is one) and never thrown. */
    static void remove(List<Path> files, Throwable failure) {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }
}
