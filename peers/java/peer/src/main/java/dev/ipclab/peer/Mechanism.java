package dev.ipclab.peer;

import static dev.ipclab.peer.Behaviours.datagrams;
import static dev.ipclab.peer.Behaviours.inProcess;
import static dev.ipclab.peer.Behaviours.rpc;
import static dev.ipclab.peer.Behaviours.shm;
import static dev.ipclab.peer.Behaviours.socketPair;
import static dev.ipclab.peer.Behaviours.stream;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.burst.BurstServer;
import dev.ipclab.peer.burst.Listening;
import dev.ipclab.peer.burst.ServerModel;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.inprocess.InProcess;
import dev.ipclab.peer.load.LoadCalls;
import dev.ipclab.peer.pattern.OneWay;
import dev.ipclab.peer.pattern.Session;
import dev.ipclab.peer.rpc.CorbaBench;
import dev.ipclab.peer.rpc.GrpcBench;
import dev.ipclab.peer.rpc.IceBench;
import dev.ipclab.peer.rpc.RestClients;
import dev.ipclab.peer.rpc.RestServer;
import dev.ipclab.peer.rpc.RmiServer;
import dev.ipclab.peer.rpc.RpcDrive;
import dev.ipclab.peer.rpc.RpcModel;
import dev.ipclab.peer.rpc.SoapBench;
import dev.ipclab.peer.rpc.ThriftBench;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.AmqpLink;
import dev.ipclab.peer.transport.AmqpPort;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.Dial;
import dev.ipclab.peer.transport.DatagramPort;
import dev.ipclab.peer.transport.Fifo;
import dev.ipclab.peer.transport.FileFrames;
import dev.ipclab.peer.transport.NatsLink;
import dev.ipclab.peer.transport.NatsPort;
import dev.ipclab.peer.transport.NngLink;
import dev.ipclab.peer.transport.NngPort;
import dev.ipclab.peer.transport.Pipe;
import dev.ipclab.peer.transport.PosixMq;
import dev.ipclab.peer.transport.QueueLoad;
import dev.ipclab.peer.transport.RedisLink;
import dev.ipclab.peer.transport.RedisPort;
import dev.ipclab.peer.transport.Shm;
import dev.ipclab.peer.transport.StreamListener;
import dev.ipclab.peer.transport.SysVMq;
import dev.ipclab.peer.transport.SysVShm;
import dev.ipclab.peer.transport.Tcp;
import dev.ipclab.peer.transport.Udp;
import dev.ipclab.peer.transport.Uds;
import dev.ipclab.peer.transport.UdsDgram;
import dev.ipclab.peer.transport.ZeroMq;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The one table of what this peer implements (PROTOCOL.md sections 4, 10 and 11): each
 * mechanism's name, endpoint grammar, how it serves (absent: drive only), how its client opens
 * for each pattern it carries (rr always; short and stream where the entry says how), the burst
 * server models its server runs ({@link ServerModel}), its load server's models, framework
 * configurations or queues, and its largest payload ({@link Behaviour}). The command line, the
 * server and client dispatch and {@code capabilities} all read it; nothing else lists mechanisms.
 */
enum Mechanism {
    TCP("tcp", EndpointKind.INET, stream((e, s) -> Tcp.listen(e, s.nodelay(), s.backlog()),
            (e, s) -> Tcp.connect(e, s.nodelay()))
            .dialing((e, s) -> Tcp.dialer(e, s.nodelay(), !s.oneSource()))
            .bursting(EnumSet.allOf(ServerModel.class), Listening::tcp)
            .loading(EnumSet.allOf(ServerModel.class), Listening::tcp,
                    (e, s) -> Tcp.connect(e, s.nodelay(), s.ioTimeoutNanos()))),
    UDP("udp", EndpointKind.INET, datagrams((e, s) -> Udp.bind(e),
            (e, s) -> Udp.connect(e, s.ioTimeoutNanos())), () -> Udp.MAX_PAYLOAD),
    /** load's models take a UNIX listening socket as they are; burst stays tcp's (11.4). */
    UDS("uds", EndpointKind.PATH, stream((e, s) -> Uds.listen(e, s.backlog()),
            (e, s) -> Uds.connect(e))
            .dialing((e, s) -> Uds.dialer(e)).loading(EnumSet.allOf(ServerModel.class),
                    Listening::uds, (e, s) -> Uds.connect(e, s.ioTimeoutNanos()))),
    UDS_DGRAM("uds-dgram", EndpointKind.PATH, datagrams((e, s) -> UdsDgram.bind(e),
            (e, s) -> UdsDgram.connect(e, s.ioTimeoutNanos())), UdsDgram::maxPayload),
    PIPE("pipe", EndpointKind.FDS, stream((e, s) -> Pipe.listen(e), (e, s) -> Pipe.connect(e))),
    FIFO("fifo", EndpointKind.DIR, stream((e, s) -> Fifo.listen(e), (e, s) -> Fifo.connect(e))),
    SYSV_MQ("sysv-mq", EndpointKind.SYSV, stream((e, s) -> SysVMq.listen(e), (e, s) -> SysVMq.connect(e))
            .dialing((e, s) -> SysVMq.dialer(e)).queueLoading(QueueLoad.SYSV_MQ)),
    POSIX_MQ("posix-mq", EndpointKind.POSIX, stream((e, s) -> PosixMq.listen(e),
            (e, s) -> PosixMq.connect(e, s.ioTimeoutNanos())).queueLoading(QueueLoad.POSIX_MQ)
            .dialing((e, s) -> PosixMq.dialer(e, s.ioTimeoutNanos()))),
    SYSV_SHM("sysv-shm", EndpointKind.SYSV, stream((e, s) -> SysVShm.listen(e),
            (e, s) -> SysVShm.connect(e, s.ioTimeoutNanos()))),
    /** file watches the directory (poll interval 0), file-poll polls it. */
    FILE("file", EndpointKind.DIR, stream((e, s) -> FileFrames.listen(e, 0),
            (e, s) -> FileFrames.connect(e, s.ioTimeoutNanos(), 0))),
    FILE_POLL("file-poll", EndpointKind.DIR, stream((e, s) -> FileFrames.listen(e, s.pollIntervalNanos()),
            (e, s) -> FileFrames.connect(e, s.ioTimeoutNanos(), s.pollIntervalNanos()))),
    SHM("shm", EndpointKind.POSIX, shm(Shm.Wait.HYBRID)),
    SHM_SPIN("shm-spin", EndpointKind.POSIX, shm(Shm.Wait.SPIN)),
    SHM_FUTEX("shm-futex", EndpointKind.POSIX, shm(Shm.Wait.FUTEX)),
    /** In-process (section 4.4): drive only, endpoint {@code inproc}. */
    NONE("none", EndpointKind.INPROC, inProcess(study -> study.mockNewArray()
            ? InProcess::newArray : InProcess::own, false)),
    JNI("jni", EndpointKind.INPROC, inProcess(study -> study.jniArraysCopy()
            ? NativeCall::jniCopy : NativeCall::jni, true)),
    FFM("ffm", EndpointKind.INPROC, inProcess(study -> InProcess::ffm, true)),
    /** RPC middleware (section 10): the framework's own protocol, no frames. */
    GRPC("grpc", EndpointKind.INET, rpc(GrpcBench::connect,
            new RpcModel("default-executor", GrpcBench::serve),
            new RpcModel("direct-executor", GrpcBench::serveDirect))
            .streaming(options -> GrpcBench.stream(options.rpc(), options.stream().messageSize(),
                    options.warmup()))),
    THRIFT_BINARY("thrift-binary", EndpointKind.INET, rpc(ThriftBench::connectBinary,
            new RpcModel("thread-pool", ThriftBench::serveBinary))),
    THRIFT_COMPACT("thrift-compact", EndpointKind.INET, rpc(ThriftBench::connectCompact,
            new RpcModel("thread-pool", ThriftBench::serveCompact))),
    REST("rest", EndpointKind.INET, rpc(RestClients::connect,
            new RpcModel("cached-thread-pool", RestServer::serve))
            .withShort(options -> RpcDrive.open(RestClients::connectShort, options.rpc()))),
    RMI("rmi", EndpointKind.INET, rpc(RmiServer::connect,
            new RpcModel("thread-per-connection", RmiServer::serve))),
    ICE("ice", EndpointKind.INET, rpc(IceBench::connect,
            new RpcModel("thread-pool-1", IceBench::serve),
            new RpcModel("thread-pool-4", IceBench::serveFourThreads))),
    CORBA("corba", EndpointKind.IOR, rpc(CorbaBench::connect,
            new RpcModel("poa-thread-pool", CorbaBench::serve))),
    /** SOAP 1.1 over HTTP (JAX-WS RI): rr only, no load configuration yet. */
    SOAP("soap", EndpointKind.INET, rpc(SoapBench::serve, SoapBench::connect)),
    /** A broker (4.7): one AMQP message per frame, answered to its reply-to as a datagram is. */
    ACTIVEMQ("activemq", EndpointKind.BROKER, datagrams((e, s) -> AmqpPort.bind(e, s.persistent()),
            (e, s) -> AmqpLink.connect(e, s.ioTimeoutNanos(), s.persistent()))),
    /**
     * ZeroMQ (4.8) over libzmq, NNG (4.9) over libnng, through FFM: REQ/REP carries the frames,
     * PUSH/PULL a stream's messages, one library message each; a tcp server's READY names both
     * sockets, an ipc server binds PATH and PATH.stream.
     */
    ZMQ_TCP("zmq-tcp", EndpointKind.TCP_PAIR, socketPair(ZeroMq::bindTcp, ZeroMq::connect, false)),
    ZMQ_IPC("zmq-ipc", EndpointKind.PATH, socketPair(ZeroMq::bindIpc, ZeroMq::connect, true)),
    NNG_TCP("nng-tcp", EndpointKind.TCP_PAIR,
            socketPair(NngPort::bindTcp, NngLink::connect, false)),
    NNG_IPC("nng-ipc", EndpointKind.PATH, socketPair(NngPort::bindIpc, NngLink::connect, true)),
    /** Redis (4.10) through Jedis: both sides clients of a Redis server, a list element each. */
    REDIS_TCP("redis-tcp", EndpointKind.REDIS_TCP, datagrams((e, s) -> RedisPort.connect(e, true),
            (e, s) -> RedisLink.connect(e, true, s.ioTimeoutNanos(), s.messageSize()))),
    REDIS_UDS("redis-uds", EndpointKind.REDIS_UDS, datagrams((e, s) -> RedisPort.connect(e, false),
            (e, s) -> RedisLink.connect(e, false, s.ioTimeoutNanos(), s.messageSize()))),
    /**
     * NATS (4.11) through jnats: both sides core NATS clients of a NATS server, one message each;
     * a frame at most the server's max_payload (64 MiB) with its header.
     */
    NATS("nats", EndpointKind.NATS, datagrams((e, s) -> NatsPort.connect(e),
            (e, s) -> NatsLink.connect(e, s.ioTimeoutNanos(), s.messageSize())),
            () -> NatsLink.MAX_PAYLOAD);

    static final String INPROC = "inproc";
    /** The default --spin-us (50 us), in nanoseconds. */
    static final long DEFAULT_SPIN_NANOS = 50_000L;
    /** The default --poll-interval-us (2000 us), in nanoseconds. */
    static final long DEFAULT_POLL_INTERVAL_NANOS = 2_000_000L;

    /**
     * The transport tuning flags a listener or link may read.
     *
     * @param nodelay --nodelay on (true) or off; only tcp, rest and grpc take off
     * @param persistent --delivery persistent (activemq only, 4.7)
     * @param backlog --backlog: a listening socket's (tcp, uds) listen() backlog
     * @param oneSource --source one: a short client over tcp binds no source address (11.2)
     * @param largestAnswer a client's largest answer in bytes (a library's receive limit, 4.8, 4.9)
     * @param messageSize a stream client's message size, else 0 (a library's stream window)
     */
    record Settings(long ioTimeoutNanos, long pollIntervalNanos, long spinNanos, boolean nodelay,
            boolean persistent, int backlog, boolean oneSource, long largestAnswer,
            int messageSize) {}

    interface Listen {
        StreamListener listen(String endpoint, Settings settings) throws IOException;
    }

    interface Bind {
        DatagramPort bind(String endpoint, Settings settings) throws IOException;
    }

    interface Connect {
        ClientLink connect(String endpoint, Settings settings) throws IOException;
    }

    /** How a server of a mechanism makes its endpoint; serving starts with {@link Server#serve}. */
    interface Serve {
        Server open(ServeOptions options, PrintStream diagnostics) throws IOException;
    }

    /** How a client of a mechanism connects for rr or short. */
    interface Open {
        Session open(DriveOptions options) throws PeerException, IOException;
    }

    /** How a stream client connects (section 11.1). */
    interface OpenStream {
        OneWay open(DriveOptions options) throws PeerException, IOException;
    }

    /** How a load client (11.5.3) opens its connection c. */
    interface OpenLoad {
        LoadCalls open(DriveOptions options, int connection) throws PeerException, IOException;
    }

    /** short over frames: how the client dials one connection per round trip (section 11.2). */
    interface Dialer {
        Dial dialer(String endpoint, Settings settings) throws IOException;
    }

    private final String label;
    private final EndpointKind endpoint;
    private final Behaviour behaviour;
    private final IntSupplier maxPayload;
    private final Set<Pattern> patterns;

    Mechanism(String label, EndpointKind endpoint, Behaviour behaviour) {
        this(label, endpoint, behaviour, () -> Frame.MAX_PAYLOAD);
    }

    Mechanism(String label, EndpointKind endpoint, Behaviour behaviour, IntSupplier maxPayload) {
        this.label = label;
        this.endpoint = endpoint;
        this.behaviour = behaviour;
        this.maxPayload = maxPayload;
        this.patterns = EnumSet.of(Pattern.RR);
        if (behaviour.shortLived() != null) {
            patterns.add(Pattern.SHORT);
        }
        if (behaviour.stream() != null) {
            patterns.add(Pattern.STREAM);
        }
        if (!behaviour.loadModels().isEmpty() || !behaviour.rpcModels().isEmpty()) {
            patterns.add(Pattern.LOAD);
        }
    }

    static Optional<Mechanism> byName(String name) {
        return Arrays.stream(values()).filter(m -> m.label.equals(name)).findFirst();
    }

    String label() {
        return label;
    }

    /** The largest request or response payload, on this machine (section 1, capabilities). */
    int maxPayload() {
        return maxPayload.getAsInt();
    }

    /**
     * A stream's largest message (section 11.1 step 10): a datagram mechanism's whole datagram
     * (NATS: the whole message), nothing taken off for a header; elsewhere the largest payload.
     */
    int maxMessage() {
        return switch (this) {
            case UDP -> Udp.MAX_DATAGRAM;
            case UDS_DGRAM -> UdsDgram.maxDatagram();
            case NATS -> NatsLink.MAX_MESSAGE;
            default -> maxPayload();
        };
    }

    boolean serves() {
        return behaviour.serve() != null;
    }

    /**
     * Why this machine cannot run it (its {@link MessageLibrary} missing: capabilities leaves it
     * out, and a client or server asked for it answers unsupported), or null.
     */
    String unavailable() {
        return MessageLibrary.of(this).map(MessageLibrary::problem).orElse(null);
    }

    /** capabilities' {@code library} (section 1): the library it runs, e.g. "libzmq 4.3.4". */
    String library() {
        return MessageLibrary.of(this).map(MessageLibrary::version).orElse(null);
    }

    Set<Pattern> patterns() {
        return patterns;
    }

    /** The burst server models (section 11.4) its server runs; empty: none. */
    Set<ServerModel> serverModels() {
        return behaviour.serverModels();
    }

    /** The models its load server (section 11.5) serves with; empty: no load. */
    Set<ServerModel> loadModels() {
        return behaviour.loadModels();
    }

    /** The framework's server configurations under load (11.5.4); empty: not an RPC load. */
    List<RpcModel> rpcModels() {
        return behaviour.rpcModels();
    }

    /** {@code load_models} in {@code capabilities}: the load server's models or configurations. */
    List<String> loadModelNames() {
        return behaviour.loadModels().isEmpty()
                ? behaviour.rpcModels().stream().map(RpcModel::name).toList()
                : behaviour.loadModels().stream().map(ServerModel::label).toList();
    }

    /** Its load server's queues and its load client's links (11.5.5); null but for a queue. */
    QueueLoad queueLoad() {
        return behaviour.queue();
    }

    /** How its burst or load server listens; null where it has neither. */
    Listening.Maker serverSockets() {
        return behaviour.sockets();
    }

    /** Whether --payload small, medium, large (section 10.2) can travel over it. */
    boolean carriesRecords() {
        return behaviour.records();
    }

    /**
     * --nodelay off (section 1): tcp, rest and grpc, whose sockets can keep Nagle's algorithm on;
     * every other mechanism has no such choice here.
     */
    boolean choosesNoDelay() {
        return switch (this) {
            case TCP, REST, GRPC -> true;
            default -> false;
        };
    }

    /**
     * --read-size (11.1): a byte stream, whose receive calls ask for a number of bytes (tcp,
     * uds, pipe, fifo); message channels, datagrams, files and shared memory receive whole units.
     */
    boolean readsByteStream() {
        return switch (this) {
            case TCP, UDS, PIPE, FIFO -> true;
            default -> false;
        };
    }

    /** --backlog of the rr server (section 1): a listening socket, tcp and uds. */
    boolean listens() {
        return this == TCP || this == UDS;
    }

    /** --one-way (11.2): short over section 2's frames (tcp, uds, sysv-mq, posix-mq). */
    boolean carriesOneWay() {
        return hasLink() && patterns.contains(Pattern.SHORT);
    }

    /** jni, ffm: need --native-library. */
    boolean needsNativeLibrary() {
        return behaviour.nativeLibrary();
    }

    /** A client of section 2's frames over a link of its own (not in-process, not RPC). */
    boolean hasLink() {
        return behaviour.link() != null;
    }

    /** @throws IllegalArgumentException if the endpoint is not of this mechanism's form */
    void checkEndpoint(String endpoint, boolean drive) {
        this.endpoint.check(endpoint, drive);
    }

    /** Makes the server's endpoint (listening, bound, objects created); not yet serving. */
    Server serve(ServeOptions options, PrintStream diagnostics) throws IOException {
        return behaviour.serve().open(options, diagnostics);
    }

    /** Connects an rr client. */
    Session open(DriveOptions options) throws PeerException, IOException {
        return behaviour.open().open(options);
    }

    /** A short client (section 11.2); only for a mechanism whose patterns have SHORT. */
    Session openShort(DriveOptions options) throws PeerException, IOException {
        return behaviour.shortLived().open(options);
    }

    /** Connects a stream client (section 11.1); only for a mechanism whose patterns have STREAM. */
    OneWay openStream(DriveOptions options) throws PeerException, IOException {
        return behaviour.stream().open(options);
    }

    /** Connection c of a load client (11.5.3-11.5.5); only where the patterns have LOAD. */
    LoadCalls connectLoad(DriveOptions options, int connection) throws PeerException, IOException {
        return behaviour.loadCalls().open(options, connection);
    }

    /** For tests: the bare link of a frame mechanism. */
    ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
        return behaviour.link().connect(endpoint, new Settings(ioTimeoutNanos,
                DEFAULT_POLL_INTERVAL_NANOS, DEFAULT_SPIN_NANOS, true, false,
                BurstOptions.DEFAULT_BACKLOG, false, Frame.HEADER_SIZE + (long) Frame.MAX_PAYLOAD,
                0));
    }
}
