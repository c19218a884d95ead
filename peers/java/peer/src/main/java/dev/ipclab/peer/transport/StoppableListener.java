package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * A listener at a fixed endpoint (fifo, file, the message channels) that hands out no further
 * client once it has been stopped or closed.
 */
abstract class StoppableListener implements StreamListener {
    private final String endpoint;
    /** Set by stop and close: every accept from then on returns null. */
    volatile boolean stopped;

    StoppableListener(String endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public final String endpoint() {
        return endpoint;
    }

    @Override
    public final StreamConnection accept() throws IOException {
        return stopped ? null : next();
    }

    /** The next client's connection; may block until it comes. */
    abstract StreamConnection next() throws IOException;

    /** Where a listener's clients come from. */
    interface Clients {
        StreamConnection next() throws IOException;
    }

    /** What a listener's stop or close does besides refusing further clients. */
    interface Step {
        void run() throws IOException;
    }

    /** A listener whose clients come from clients, whose stop and close also run onStop, onClose. */
    static StoppableListener of(String endpoint, Clients clients, Step onStop, Step onClose) {
        return new StoppableListener(endpoint) {
            @Override
            StreamConnection next() throws IOException {
                return clients.next();
            }

            @Override
            public void stop() throws IOException {
                stopped = true;
                onStop.run();
            }

            @Override
            public void close() throws IOException {
                stopped = true;
                onClose.run();
            }
        };
    }
}
