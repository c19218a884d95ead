package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.rpc.corba.Bench;
import dev.ipclab.rpc.corba.BenchHelper;
import dev.ipclab.rpc.corba.BenchOperations;
import dev.ipclab.rpc.corba.BenchPOATie;
import dev.ipclab.rpc.corba.Large;
import dev.ipclab.rpc.corba.Medium;
import dev.ipclab.rpc.corba.Small;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Properties;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TIMEOUT;
import org.omg.CORBA.TRANSIENT;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * JacORB 3.9 over GIOP 1.2 / IIOP; READY's endpoint is the servant's IOR, which the client turns
 * back into a reference with string_to_object (no naming service). JacORB sets TCP_NODELAY on
 * every connection itself and has no message size limit of its own (GIOP's is 4 GiB).
 */
public final class CorbaBench {
    private CorbaBench() {}

    /**
     * An ORB of its own, configured here only: JacORB otherwise reads orb.properties and
     * jacorb.properties from the class path, the home directory and the JDK.
     */
    private static ORB orb(Properties extra) {
        Properties properties = new Properties();
        properties.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        properties.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        // stdout of a server carries only READY: no version banner (JacORB logs through slf4j,
        // which slf4j-nop silences).
        properties.setProperty("jacorb.orb.print_version", "off");
        // Buffers up to 2^28 bytes (256 MiB) are pooled and reused instead of being allocated
        // per call (the default pools up to 4 MiB), so a 128 MiB payload does not churn the heap.
        properties.setProperty("jacorb.maxManagedBufSize", "28");
        properties.putAll(extra);
        return ORB.init(new String[0], properties);
    }

    /**
     * JacORB's default server (load's {@code poa-thread-pool}): a reader thread per connection
     * hands each request to the RootPOA's request processors, a pool of 5 to 20 threads
     * (jacorb.poa.thread_pool_min and _max left at their defaults).
     *
     * @param nodelay always true here: JacORB sets TCP_NODELAY itself
     */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay) {
        Properties properties = new Properties();
        properties.setProperty("OAIAddr", address.getAddress().getHostAddress());
        if (address.getPort() != 0) {
            properties.setProperty("OAPort", Integer.toString(address.getPort()));
        }
        ORB orb = orb(properties);
        try {
            POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            root.the_POAManager().activate();
            String ior = orb.object_to_string(root.servant_to_reference(
                    new BenchPOATie(new Servant(bench))));
            // Waits for calls in progress; never called from a servant's thread.
            return new RpcServer(ior, () -> {
                orb.shutdown(true);
                orb.destroy();
            });
        } catch (org.omg.CORBA.UserException e) {
            orb.destroy();
            throw new IllegalStateException("cannot activate the servant: " + e, e);
        } catch (RuntimeException e) {
            orb.destroy();
            throw e;
        }
    }

    /**
     * The bench behind the generated operations; the POA reaches it through the generated tie,
     * since the servant's one superclass is the shared {@link BenchServant}. A RuntimeException
     * reaches the client as CORBA::UNKNOWN: a protocol error there.
     */
    private static final class Servant extends BenchServant<Small, Medium, Large>
            implements BenchOperations {
        Servant(BenchState bench) {
            super(bench);
        }

        @Override
        public String callString(long seq, int wanted, String request) {
            return bench.callString(seq, Integer.toUnsignedLong(wanted), request);
        }
    }

    /** The endpoint is the server's IOR. */
    public static RpcClient connect(RpcDrive.Options options) throws PeerException {
        String millis = Long.toString(Math.min(Integer.MAX_VALUE,
                Math.max(1, options.ioTimeoutNanos() / 1_000_000)));
        Properties properties = new Properties();
        // Every reply waits at most --io-timeout, then CORBA::TIMEOUT.
        properties.setProperty("jacorb.connection.client.pending_reply_timeout", millis);
        properties.setProperty("jacorb.connection.client.connect_timeout", millis);
        // A refused connection is io at once, not after JacORB's 5 retries 500 ms apart.
        properties.setProperty("jacorb.retries", "0");
        ORB orb = orb(properties);
        try {
            Bench bench = BenchHelper.narrow(orb.string_to_object(options.endpoint()));
            // Connect now, before the warm-up (narrow may have answered from the IOR alone).
            bench._non_existent();
            return options.corbaString() ? new Text(orb, bench) : new Client(orb, bench);
        } catch (RuntimeException e) {
            orb.destroy();
            PeerException failure = classify(e);
            throw new PeerException(failure.kind(), "cannot connect to the corba server: "
                    + failure.getMessage(), e);
        }
    }

    /** The stub's operations; the ORB goes with the client. */
    private static class Client extends StubClient {
        Client(ORB orb, Bench bench) {
            super(bench::call, bench::put, bench::finish, CorbaBench::classify, () -> {
                orb.shutdown(false);
                orb.destroy();
            }, StubClient.echo(Small.class, bench::echoSmall, bench::putSmall),
                    StubClient.echo(Medium.class, bench::echoMedium, bench::putMedium),
                    StubClient.echo(Large.class, bench::echoLarge, bench::putLarge));
        }
    }

    /**
     * --corba-payload string: callString with the request's text made before the clock; the
     * returned text is compared with the expected response's text after it.
     */
    private static final class Text extends Client {
        private final Bench bench;

        Text(ORB orb, Bench bench) {
            super(orb, bench);
            this.bench = bench;
        }

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return new Object[] {sequence, wanted, PayloadText.of(request)};
        }

        @Override
        public Object call(Object prepared) {
            Object[] args = (Object[]) prepared;
            return bench.callString((Long) args[0], (Integer) args[1], (String) args[2]);
        }

        @Override
        public long firstMismatch(Object response, Payloads expected, long sequence, int length) {
            return PayloadText.firstMismatch(expected.stamped(sequence, length), (String) response);
        }

        @Override
        public int responseLength(Object response) {
            return ((String) response).length();
        }
    }

    private static final StubClient.Kinds KINDS = new StubClient.Kinds(List.of(TIMEOUT.class),
            List.of(TRANSIENT.class, COMM_FAILURE.class, OBJECT_NOT_EXIST.class));

    private static PeerException classify(Throwable failure) {
        return KINDS.classify("corba: " + failure.getClass().getName() + ": " + failure.getMessage(),
                failure);
    }
}
