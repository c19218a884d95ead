package dev.ipclab.peer.rpc;

/**
 * A failure of an RPC exchange, with the contract's error kind as its label (PROTOCOL.md section
 * 8): the peer package turns it into its own error, so this package needs none of its types.
 */
public final class RpcException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String kind;

    RpcException(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    RpcException(String kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** {@code io}, {@code timeout}, {@code protocol}, {@code payload-mismatch}, {@code unsupported} or {@code internal}. */
    public String kind() {
        return kind;
    }

    static RpcException io(String message, Throwable cause) {
        return new RpcException("io", message, cause);
    }

    static RpcException timeout(String message, Throwable cause) {
        return new RpcException("timeout", message, cause);
    }

    static RpcException protocol(String message, Throwable cause) {
        return new RpcException("protocol", message, cause);
    }

    static RpcException mismatch(String message) {
        return new RpcException("payload-mismatch", message);
    }

    static RpcException unsupported(String message) {
        return new RpcException("unsupported", message);
    }

    /** The exception's type and message, as PeerException.describe does. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        String name = e.getClass().getSimpleName();
        return message == null ? name : name + ": " + message;
    }
}
