package dev.ipclab.peer;

import dev.ipclab.peer.transport.Amqp;
import dev.ipclab.peer.transport.Endpoints;
import dev.ipclab.peer.transport.NatsEndpoint;
import dev.ipclab.peer.transport.PosixMq;
import dev.ipclab.peer.transport.RedisEndpoint;
import dev.ipclab.peer.transport.SocketPair;
import dev.ipclab.peer.transport.SysVKeys;

/**
 * The endpoint grammars of PROTOCOL.md section 4 (the {@code endpoint} kinds of
 * protocol/mechanisms.toml); each mechanism in {@link Mechanism} names one.
 */
enum EndpointKind {
    /** {@code HOST:PORT}. */
    INET((endpoint, drive) -> Endpoints.hostPort(endpoint)),
    /** A socket path. */
    PATH((endpoint, drive) -> Endpoints.path(endpoint)),
    /** {@code fd:R,W}. */
    FDS((endpoint, drive) -> Endpoints.fdPair(endpoint)),
    /** A directory. */
    DIR((endpoint, drive) -> Endpoints.path(endpoint)),
    /** {@code auto} (serve), then {@code sysv:0x1C1Axxxx}. */
    SYSV((endpoint, drive) -> {
        if (!endpoint.equals(EndpointKind.AUTO)) {
            SysVKeys.parse(endpoint);
        }
    }),
    /** {@code auto} (serve), then {@code posix:/NAME}. */
    POSIX((endpoint, drive) -> PosixMq.checkEndpoint(endpoint)),
    /** {@code inproc}: a function call, no server. */
    INPROC((endpoint, drive) -> {
        if (!endpoint.equals(Mechanism.INPROC)) {
            throw new IllegalArgumentException("the endpoint must be inproc, got '" + endpoint + "'");
        }
    }),
    /** corba: the server listens on {@code HOST:PORT}; a client gets the server's {@code IOR:...}. */
    IOR((endpoint, drive) -> {
        if (!drive) {
            Endpoints.hostPort(endpoint);
        } else if (!endpoint.startsWith("IOR:")) {
            throw new IllegalArgumentException("a corba endpoint is the server's IOR:..., got '"
                    + endpoint + "'");
        }
    }),
    /** activemq (4.7): the broker's {@code amqp://HOST:PORT}; a client adds {@code /QUEUE}. */
    BROKER(Amqp::parse),
    /**
     * zmq-tcp (4.8), nng-tcp (4.9): the server binds {@code HOST:PORT}; a client gets READY's
     * two addresses.
     */
    TCP_PAIR(SocketPair::checkTcp),
    /** redis-tcp (4.10): {@code redis://HOST:PORT/NAME}, the same for the responder and client. */
    REDIS_TCP((endpoint, drive) -> RedisEndpoint.parse(endpoint, true)),
    /** redis-uds (4.10): {@code unix://PATH#NAME}. */
    REDIS_UDS((endpoint, drive) -> RedisEndpoint.parse(endpoint, false)),
    /** nats (4.11): {@code nats://HOST:PORT/NAME}, the same for the responder and client. */
    NATS((endpoint, drive) -> NatsEndpoint.parse(endpoint));

    static final String AUTO = "auto";

    private interface Check {
        void check(String endpoint, boolean drive);
    }

    private final Check check;

    EndpointKind(Check check) {
        this.check = check;
    }

    /**
     * @param drive a client's endpoint (else a server's)
     * @throws IllegalArgumentException if the endpoint is not of this form
     */
    void check(String endpoint, boolean drive) {
        check.check(endpoint, drive);
    }
}
