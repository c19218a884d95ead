package dev.ipclab.peer.rpc;

/**
 * The operations of section 10.1 as every generated service interface names them, over the
 * bench: a framework's servant extends this with its generated records as S, M and L and
 * implements its interface, whose methods these are (javac bridges the generic ones). Each
 * framework's interface is its own type, so only a base class can serve them all. Ice's
 * operations take a {@code Current} as well and keep a servant of their own; Thrift's call and
 * put take a ByteBuffer, so its handler adds those two beside these.
 */
abstract class BenchServant<S, M, L> {
    final BenchState bench;

    BenchServant(BenchState bench) {
        this.bench = bench;
    }

    /** wanted is unsigned on the wire; a RuntimeException is the framework's error to the client. */
    public byte[] call(long seq, int wanted, byte[] request) {
        return bench.call(seq, Integer.toUnsignedLong(wanted), request);
    }

    /** For generated records with a public mutable n2; a framework whose records differ overrides. */
    public S echoSmall(S value) {
        return bench.echoed(value);
    }

    public M echoMedium(M value) {
        return bench.echoed(value);
    }

    public L echoLarge(L value) {
        return bench.echoed(value);
    }

    public long finish() {
        return bench.finish();
    }

    public void put(long seq, byte[] request) {
        bench.put(seq, request);
    }

    // The void record operations (--void) only deliver: nothing in a record is checked.
    public void putSmall(S value) {}

    public void putMedium(M value) {}

    public void putLarge(L value) {}
}
