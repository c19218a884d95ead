package dev.ipclab.peer.rpc;

import com.sun.net.httpserver.HttpServer;
import com.sun.xml.ws.developer.JAXWSProperties;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.rpc.soap.Bench;
import dev.ipclab.rpc.soap.BenchService;
import dev.ipclab.rpc.soap.Large;
import dev.ipclab.rpc.soap.Medium;
import dev.ipclab.rpc.soap.Small;
import jakarta.jws.WebService;
import jakarta.xml.ws.BindingProvider;
import jakarta.xml.ws.Endpoint;
import jakarta.xml.ws.soap.SOAPFaultException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * SOAP 1.1 (protocol/idl/ipclab_soap.wsdl, document/literal wrapped) with the JAX-WS reference
 * implementation: the SEI, service and JAXB records are wsimport's, generated at build time from
 * the WSDL, which the jar carries (META-INF/wsdl) for both sides. The server is the JDK's
 * {@code HttpServer} on a thread pool with the endpoint published at {@code /soap}; the client
 * is the generated port over the JDK's HttpURLConnection, which keeps its one connection alive
 * (http.keepAlive's default) and sets TCP_NODELAY itself.
 */
public final class SoapBench {
    /** The path every ipclab SOAP server answers on (section 10.3). */
    static final String PATH = "/soap";

    private SoapBench() {}

    /** @param nodelay always true here (--nodelay off is rest's and grpc's only) */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay)
            throws IOException {
        RestServer.useNodelay(nodelay);
        HttpServer server = HttpServer.create(address, 64);
        ExecutorService threads = Executors.newCachedThreadPool(runnable ->
                Thread.ofPlatform().daemon().name("ipclab-soap").unstarted(runnable));
        server.setExecutor(threads);
        Endpoint endpoint = Endpoint.create(new Servant(bench));
        endpoint.publish(server.createContext(PATH));
        server.start();
        return new RpcServer(RpcServer.format(address, server.getAddress().getPort()), () -> {
            endpoint.stop();
            server.stop(0);
            threads.shutdownNow();
        });
    }

    /**
     * The generated SEI implemented over the bench. Public and not final: JAX-WS checks the
     * implementor class as a web service bean. The WSDL named here is the committed contract, so
     * the endpoint serves exactly its messages (and publishes it at {@code ?wsdl}).
     */
    @WebService(endpointInterface = "dev.ipclab.rpc.soap.Bench",
            targetNamespace = "urn:ipclab:soap", serviceName = "BenchService", portName = "BenchPort",
            wsdlLocation = "META-INF/wsdl/ipclab_soap.wsdl")
    public static class Servant extends BenchServant<Small, Medium, Large> implements Bench {
        Servant(BenchState bench) {
            super(bench);
        }

        // JAXB records are beans: the fault flips n2's low bit (10.1); without it the XOR is with 0.
        @Override
        public Small echoSmall(Small record) {
            record.setN2(record.getN2() ^ bench.n2Flip());
            return record;
        }

        @Override
        public Medium echoMedium(Medium record) {
            record.setN2(record.getN2() ^ bench.n2Flip());
            return record;
        }

        @Override
        public Large echoLarge(Large record) {
            record.setN2(record.getN2() ^ bench.n2Flip());
            return record;
        }
    }

    /**
     * @throws PeerException timeout when the first request waits longer than --io-timeout
     * @throws IOException the connection cannot be made (io)
     */
    public static RpcClient connect(RpcDrive.Options options) throws IOException, PeerException {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        String url = "http://" + RpcServer.format(address.getHostString(), address.getPort())
                + PATH;
        int millis = (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, (options.ioTimeoutNanos() + 999_999) / 1_000_000));
        Bench port = new BenchService().getBenchPort();
        Map<String, Object> context = ((BindingProvider) port).getRequestContext();
        context.put(BindingProvider.ENDPOINT_ADDRESS_PROPERTY, url);
        // Both become the HttpURLConnection's connect and read (socket) timeouts.
        context.put(JAXWSProperties.CONNECT_TIMEOUT, millis);
        context.put(JAXWSProperties.REQUEST_TIMEOUT, millis);
        try {
            openConnection(url, millis);
            return new Client(port);
        } catch (SocketTimeoutException e) {
            close(port);
            throw PeerException.timeout("soap: no answer from " + url + " within --io-timeout: "
                    + PeerException.describe(e), e);
        } catch (IOException | RuntimeException e) {
            close(port);
            throw e;
        }
    }

    /**
     * Connects before the warm-up (10.3: "a first HTTP request"): a GET on the endpoint, whose
     * answer (any status) is read to its end, so the JDK keeps the connection alive and the
     * port's first POST reuses it. No SOAP operation runs, so the server's state is unchanged.
     */
    private static void openConnection(String url, int millis) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
        connection.setConnectTimeout(millis);
        connection.setReadTimeout(millis);
        int status = connection.getResponseCode();
        try (InputStream body = status < 400 ? connection.getInputStream()
                : connection.getErrorStream()) {
            if (body != null) {
                body.transferTo(OutputStream.nullOutputStream());
            }
        }
    }

    /** A JAX-WS port is Closeable; closing it leaves nothing the process must release. */
    private static void close(Bench port) {
        try {
            ((Closeable) port).close();
        } catch (IOException e) {
            // Nothing more to release: the port only drops its state.
        }
    }

    /** The generated port; JAXB records are beans, filled and read by {@link SoapRecords}. */
    private static final class Client extends StubClient {
        Client(Bench port) {
            super(port::call, port::put, port::finish, SoapBench::classify,
                    () -> SoapBench.close(port),
                    echo(Small.class, port::echoSmall, port::putSmall),
                    echo(Medium.class, port::echoMedium, port::putMedium),
                    echo(Large.class, port::echoLarge, port::putLarge));
        }

        @Override
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            return SoapRecords.toBean(newRecord(kind), kind, record);
        }

        @Override
        public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
            return SoapRecords.toMap(kind, value);
        }
    }

    /**
     * A soap:Fault is the server's error (protocol); a socket timeout anywhere in the causes is
     * timeout; another I/O failure (refused, reset, end of stream) is io; the rest (an HTTP
     * error status without a fault, a reply JAX-WS cannot read) is protocol.
     */
    static PeerException classify(Throwable failure) {
        String text = "soap: " + PeerException.describe(failure);
        if (failure instanceof SOAPFaultException) {
            return PeerException.protocol(text, failure);
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return PeerException.timeout(text, failure);
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException) {
                return PeerException.io(text, failure);
            }
        }
        return PeerException.protocol(text, failure);
    }
}
