package dev.ipclab.peer.transport;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/** Parsing and printing of the endpoint strings of PROTOCOL.md section 4. */
public final class Endpoints {
    private static final String FD_PREFIX = "fd:";
    /** The rr/short servers' listen() backlog (PROTOCOL.md 11.2): a fast client queues. */
    public static final int LISTEN_BACKLOG = 512;

    private Endpoints() {}

    /** A parsed {@code HOST:PORT}; the host may be an IPv6 literal in brackets. */
    public record HostPort(String host, int port) {
        /** Resolves the host (a literal or a name) now. */
        public InetSocketAddress resolve() {
            return new InetSocketAddress(host, port);
        }
    }

    /** The two descriptors of {@code fd:R,W}. */
    record FdPair(int read, int write) {}

    public static HostPort hostPort(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("endpoint must be HOST:PORT, got '" + endpoint + "'");
        }
        String host = endpoint.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("an IPv6 host must be in brackets: '" + endpoint + "'");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("endpoint has an empty host: '" + endpoint + "'");
        }
        long port = Numbers.unsigned(endpoint.substring(colon + 1), "port");
        if (port > 65535) {
            throw new IllegalArgumentException("port must be at most 65535, got " + port);
        }
        return new HostPort(host, (int) port);
    }

    public static FdPair fdPair(String endpoint) {
        if (!endpoint.startsWith(FD_PREFIX)) {
            throw new IllegalArgumentException("pipe endpoint must be fd:R,W, got '" + endpoint + "'");
        }
        String[] fds = endpoint.substring(FD_PREFIX.length()).split(",", -1);
        if (fds.length != 2) {
            throw new IllegalArgumentException("pipe endpoint must be fd:R,W, got '" + endpoint + "'");
        }
        return new FdPair(descriptor(fds[0]), descriptor(fds[1]));
    }

    public static String path(String endpoint) {
        if (endpoint.isEmpty()) {
            throw new IllegalArgumentException("endpoint must be a non-empty path");
        }
        return endpoint;
    }

    /** The address actually bound, as READY reports it: an IP literal, never a name. */
    public static String format(InetSocketAddress bound) {
        String host = bound.getAddress().getHostAddress();
        if (bound.getAddress() instanceof Inet6Address) {
            host = "[" + host + "]";
        }
        return host + ":" + bound.getPort();
    }

    private static int descriptor(String text) {
        long fd = Numbers.unsigned(text, "file descriptor");
        if (fd > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("file descriptor out of range: " + text);
        }
        return (int) fd;
    }
}
