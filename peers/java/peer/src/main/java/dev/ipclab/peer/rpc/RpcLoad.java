package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.load.LoadCalls;
import java.io.IOException;

/**
 * A load connection over an RPC framework (PROTOCOL.md 11.5.4): one client object of the
 * framework with a transport connection of its own; request k is the stub call
 * {@code call(k, response-size, payload(seed, 1, k, request-size))}, checked as the rr client
 * checks it; the end is {@code finish}. The request array is stamped in place before the wait:
 * a blocking stub has sent the whole request when it returns.
 */
public final class RpcLoad implements LoadCalls {
    private final RpcClient client;
    private final int responseSize;
    private final byte[] request;
    private final Payloads requests;
    private final Payloads responses;
    private Object prepared;
    private Object response;

    private RpcLoad(RpcClient client, RpcDrive.Options options) {
        this.client = client;
        this.responseSize = options.responseSize();
        this.requests = new Payloads(options.seed(), Payload.REQUEST_STREAM);
        this.responses = new Payloads(options.seed(), Payload.RESPONSE_STREAM);
        this.request = requests.stamped(0, options.requestSize());
    }

    /**
     * Makes one client object and its connection, before T0.
     *
     * @throws IOException the framework cannot connect (the case is not run: io)
     * @throws PeerException what this client cannot do as asked (unsupported)
     */
    public static LoadCalls connect(RpcClient.Factory factory, RpcDrive.Options options)
            throws IOException, PeerException {
        RpcClient client = RpcDrive.connectWith(factory, options, e -> connectFailure(options, e));
        try {
            client.awaitConnected(options.ioTimeoutNanos());
        } catch (Exception e) {
            client.close();
            throw connectFailure(options, e);
        }
        return new RpcLoad(client, options);
    }

    /** A framework's exception as the io failure of a connect, naming the endpoint. */
    private static IOException connectFailure(RpcDrive.Options options, Exception e) {
        return new IOException(options.endpoint() + ": " + PeerException.describe(e), e);
    }

    @Override
    public void prepare(long k) {
        requests.stamp(request, k);
        prepared = client.prepareCall(k, responseSize, request);
    }

    @Override
    public void exchange(long k) throws PeerException {
        try {
            response = client.call(prepared);
        } catch (Exception e) {
            throw client.classify(e);
        }
    }

    @Override
    public PeerException check(long k) {
        return RpcDrive.mismatch(client, response, responses, k, responseSize);
    }

    /** finish: the whole server's count since the previous finish (10.1). */
    @Override
    public long end(long next) throws PeerException {
        try {
            return client.finish();
        } catch (Exception e) {
            throw client.classify(e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
