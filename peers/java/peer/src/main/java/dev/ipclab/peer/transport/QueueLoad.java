package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * load over a message queue (PROTOCOL.md 11.5.5), per mechanism: how its server makes the queues
 * ({@link LoadQueue}) and how a client opens its connection c, a {@link ClientLink} whose
 * REQUEST and END go to the shared request queue and whose answers come to c's reply address.
 */
public enum QueueLoad {
    SYSV_MQ(SysVMqLoad::listen, SysVMqLoad::connect),
    POSIX_MQ(PosixMqLoad::listen, PosixMqLoad::connect);

    /** How a mechanism makes its queues for a load server ({@code auto} only). */
    public interface Listen {
        LoadQueue listen(String endpoint) throws IOException;
    }

    /** How a load client opens its connection c (the reply address). */
    public interface Connect {
        /**
         * @param responseSize what a reply queue must hold (posix-mq)
         * @param timeoutNanos --io-timeout, where the receive has a timed form (posix-mq)
         */
        ClientLink connect(String endpoint, int connection, int responseSize, long timeoutNanos)
                throws IOException;
    }

    private final Listen listen;
    private final Connect connect;

    QueueLoad(Listen listen, Connect connect) {
        this.listen = listen;
        this.connect = connect;
    }

    /** Makes the server's queues; READY's endpoint is the result's. */
    public LoadQueue listen(String endpoint) throws IOException {
        return listen.listen(endpoint);
    }

    public ClientLink connect(String endpoint, int connection, int responseSize,
            long timeoutNanos) throws IOException {
        return connect.connect(endpoint, connection, responseSize, timeoutNanos);
    }
}
