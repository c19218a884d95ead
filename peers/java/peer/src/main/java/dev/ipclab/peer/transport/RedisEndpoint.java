package dev.ipclab.peer.transport;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A Redis server and a round's key name on it (PROTOCOL.md 4.10), the same string for the
 * responder and the client: {@code redis://HOST:PORT/NAME} (redis-tcp) or
 * {@code unix://PATH#NAME} (redis-uds: PATH absolute, NAME after its last {@code #}). NAME keeps
 * two runs or rounds that share a server apart; the keys are NAME:requests (to the responder),
 * NAME:replies (back) and NAME:credits (a stream's flow control).
 *
 * @param server redis-tcp's HOST:PORT; null for redis-uds
 * @param socket redis-uds's socket path; null for redis-tcp
 */
public record RedisEndpoint(String text, Endpoints.HostPort server, String socket, String name) {
    private static final String TCP = "redis://";
    private static final String UDS = "unix://";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,200}");

    /**
     * @param tcp redis-tcp's form, else redis-uds's
     * @throws IllegalArgumentException if text is not of that form
     */
    public static RedisEndpoint parse(String text, boolean tcp) {
        String scheme = tcp ? TCP : UDS;
        String form = "a " + (tcp ? "redis-tcp endpoint is redis://HOST:PORT/NAME"
                : "redis-uds endpoint is unix://PATH#NAME") + ", got '" + text + "'";
        String rest = text.startsWith(scheme) ? text.substring(scheme.length()) : "";
        int cut = tcp ? rest.indexOf('/') : rest.lastIndexOf('#');
        if (cut <= 0) {
            throw new IllegalArgumentException(form);
        }
        String name = rest.substring(cut + 1);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(form + ": NAME is 1-200 of A-Z a-z 0-9 . _ : -");
        }
        String where = rest.substring(0, cut);
        if (!tcp) {
            if (!where.startsWith("/")) {
                throw new IllegalArgumentException(form + ": the socket path is not absolute");
            }
            return new RedisEndpoint(text, null, where, name);
        }
        Endpoints.HostPort server;
        try {
            server = Endpoints.hostPort(where);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(form + ": " + e.getMessage());
        }
        if (server.port() == 0) {
            throw new IllegalArgumentException(form + ": the port is 0");
        }
        return new RedisEndpoint(text, server, null, name);
    }

    /** The server as an error names it: HOST:PORT or the socket's path. */
    String where() {
        if (server == null) {
            return socket;
        }
        String host = server.host().contains(":") ? "[" + server.host() + "]" : server.host();
        return host + ":" + server.port();
    }

    byte[] requests() {
        return key("requests");
    }

    byte[] replies() {
        return key("replies");
    }

    byte[] credits() {
        return key("credits");
    }

    private byte[] key(String role) {
        return (name + ":" + role).getBytes(StandardCharsets.US_ASCII);
    }
}
