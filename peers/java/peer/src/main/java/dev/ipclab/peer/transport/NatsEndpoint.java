package dev.ipclab.peer.transport;

import java.util.regex.Pattern;

/**
 * A NATS server and a round's subject name on it (PROTOCOL.md 4.11), the same string for the
 * responder and the client: {@code nats://HOST:PORT/NAME}. NAME (4.10's key name with {@code _}
 * for {@code .}, the subject tokens' separator) keeps two runs or rounds that share a server
 * apart; the subjects are NAME.requests (to the responder) and NAME.credits (a stream's flow
 * control, back to the client).
 */
public record NatsEndpoint(String text, Endpoints.HostPort server, String name) {
    private static final String SCHEME = "nats://";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_:-]{1,200}");

    /** @throws IllegalArgumentException if text is not of that form */
    public static NatsEndpoint parse(String text) {
        String form = "a nats endpoint is nats://HOST:PORT/NAME, got '" + text + "'";
        String rest = text.startsWith(SCHEME) ? text.substring(SCHEME.length()) : "";
        int cut = rest.indexOf('/');
        if (cut <= 0) {
            throw new IllegalArgumentException(form);
        }
        String name = rest.substring(cut + 1);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(form + ": NAME is 1-200 of A-Z a-z 0-9 _ : -");
        }
        Endpoints.HostPort server;
        try {
            server = Endpoints.hostPort(rest.substring(0, cut));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(form + ": " + e.getMessage());
        }
        if (server.port() == 0) {
            throw new IllegalArgumentException(form + ": the port is 0");
        }
        return new NatsEndpoint(text, server, name);
    }

    /** The server as an error names it, and as a URL's authority: HOST:PORT, [V6]:PORT. */
    String where() {
        String host = server.host().contains(":") ? "[" + server.host() + "]" : server.host();
        return host + ":" + server.port();
    }

    /** The server's URL for the library: {@code nats://HOST:PORT}. */
    String url() {
        return SCHEME + where();
    }

    String requests() {
        return name + ".requests";
    }

    String credits() {
        return name + ".credits";
    }
}
