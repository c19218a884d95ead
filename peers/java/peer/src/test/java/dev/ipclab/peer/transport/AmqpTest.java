package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The activemq endpoints of PROTOCOL.md 4.7: the broker's URL, and a client's queue after it. */
class AmqpTest {
    @ParameterizedTest
    @CsvSource({"amqp://127.0.0.1:5672/ipclab.7.requests,amqp://127.0.0.1:5672,ipclab.7.requests",
        "amqp://[::1]:1/q,amqp://[::1]:1,q",
        "amqp://broker.example:61616/a/b,amqp://broker.example:61616,a/b"})
    void aClientsEndpointIsTheBrokerAndAQueue(String endpoint, String broker, String queue) {
        assertEquals(new Amqp.Address(broker, queue), Amqp.parse(endpoint, true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"amqp://127.0.0.1:5672", "amqp://127.0.0.1:5672/", "127.0.0.1:5672/q",
        "amqps://127.0.0.1:5672/q", "amqp://127.0.0.1/q", "amqp://127.0.0.1:99999/q", "amqp:///q"})
    void aClientNeedsAQueueOnAnAmqpHostAndPort(String endpoint) {
        assertThrows(IllegalArgumentException.class, () -> Amqp.parse(endpoint, true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"amqp://127.0.0.1:5672/q", "amqp://127.0.0.1:5672/", "127.0.0.1:5672",
        "amqp://127.0.0.1"})
    void aRespondersEndpointIsTheBrokerAlone(String endpoint) {
        assertThrows(IllegalArgumentException.class, () -> Amqp.parse(endpoint, false));
        assertEquals(new Amqp.Address("amqp://127.0.0.1:5672", null),
                Amqp.parse("amqp://127.0.0.1:5672", false));
    }
}
