package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The message mechanisms' server side (sysv-mq here; posix-mq and the shm ones share it). */
class MessageListenerTest {
    /**
     * A stop that lands between accept's check of `stopped` and the stream it then makes found
     * no stream to stop: the new stream read the stop's wake message as an empty message and
     * waited for the next one forever (the flake survey: "the server did not stop", 1 in 5).
     */
    @Test
    void aStopBeforeTheNextStreamIsMadeEndsThatStream() throws Exception {
        try (StreamListener listener = SysVMq.listen("auto")) {
            listener.stop();
            StreamConnection stream = ((MessageListener) listener).next();  // accept's own step
            int read = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> stream.read(ByteBuffer.allocate(64)));
            assertEquals(-1, read);
        }
    }
}
