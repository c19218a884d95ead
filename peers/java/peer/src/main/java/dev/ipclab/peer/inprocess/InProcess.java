package dev.ipclab.peer.inprocess;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Session;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The in-process baselines of PROTOCOL.md section 4.4 (drive only, {@code --endpoint inproc}):
 * one round trip is one call of {@code ipclab_call} through JNI or FFM, or ({@code none}) the
 * client making the response itself. The request is stamped before the clock; every response is
 * checked in full after it.
 */
public final class InProcess implements Session {
    /** How one round trip is made; each returns the response or null on a failed call. */
    public abstract static class Call {
        public abstract byte[] call(byte[] request, int responseSize, long seed, long sequence)
                throws Throwable;

        /**
         * Whether the response carries payload(seed, 2, sequence, n), checked in full after the
         * clock; false for the thesis's Mock, whose new array is zeros by definition and whose
         * length is all there is to check.
         */
        boolean filled() {
            return true;
        }
    }

    /** Makes a mechanism's call (its entry in the mechanism table). */
    public interface Maker {
        Call make(String nativeLibrary, long seed, int requestSize, int responseSize)
                throws PeerException;
    }

    private final Call call;
    private final long seed;
    private final int requestSize;
    private final int responseSize;
    private final byte[] request;
    private final long requestHead;
    private final ExpectedPayload expected;
    private final ByteBuffer responseView;
    private final ExpectedPayload.Check check;
    private byte[] lastResponse;

    private InProcess(Call call, long seed, int requestSize, int responseSize) {
        this.call = call;
        this.seed = seed;
        this.requestSize = requestSize;
        this.responseSize = responseSize;
        ByteBuffer base = Payload.base(seed, Payload.REQUEST_STREAM, requestSize);
        this.request = new byte[requestSize];
        base.get(0, request);
        this.requestHead = Payload.head(seed, Payload.REQUEST_STREAM);
        this.expected = new ExpectedPayload(seed, Payload.RESPONSE_STREAM, responseSize);
        this.responseView = Frame.allocate(responseSize);
        this.check = expected.bind(responseView, 0);
    }

    /** @throws PeerException io when --native-library cannot be loaded */
    public static InProcess open(Maker maker, String nativeLibrary, long seed, int requestSize,
            int responseSize) throws PeerException {
        return new InProcess(maker.make(nativeLibrary, seed, requestSize, responseSize), seed,
                requestSize, responseSize);
    }

    @Override
    public long roundTrip(long sequence) throws PeerException {
        stamp(sequence);
        byte[] response;
        long start = System.nanoTime();
        try {
            response = call.call(request, responseSize, seed, sequence);
        } catch (Throwable t) {
            throw new PeerException(ErrorKind.INTERNAL, "the call failed: " + t, t);
        }
        long stop = System.nanoTime();
        check(sequence, response);
        return stop - start;
    }

    /** A call has no END: nothing to finish. */
    @Override
    public void finish(long sequence) {}

    private void stamp(long sequence) {
        long stamped = requestHead ^ sequence;
        for (int j = 0, n = Math.min(8, requestSize); j < n; j++, stamped >>>= 8) {
            request[j] = (byte) stamped;
        }
    }

    private void check(long sequence, byte[] response) throws PeerException {
        if (response == null) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: the call "
                    + "rejected request sequence " + sequence + " (wrong stamp)");
        }
        if (response.length != responseSize) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: response "
                    + "sequence " + sequence + " has " + response.length + " bytes, expected "
                    + responseSize);
        }
        if (!call.filled()) {
            lastResponse = response;
            return;
        }
        responseView.put(0, response);
        int offset = check.firstMismatch(sequence);
        if (offset >= 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: response "
                    + "sequence " + sequence + " differs from the expected bytes at offset " + offset);
        }
        lastResponse = response;
    }

    /** none: the response made here, no call. */
    public static Call own(String nativeLibrary, long seed, int requestSize, int responseSize) {
        return new Own(seed, responseSize);
    }

    /** none with --mock new-array: the thesis's Mock, a new zero-filled array per call. */
    public static Call newArray(String nativeLibrary, long seed, int requestSize,
            int responseSize) {
        return new NewArray();
    }

    public static Call ffm(String nativeLibrary, long seed, int requestSize, int responseSize)
            throws PeerException {
        return new Ffm(nativeLibrary, requestSize, responseSize);
    }

    /** For tests: the last response that passed the checks. */
    byte[] lastResponse() {
        return lastResponse;
    }

    /** --native-library as an absolute path to an existing file (jni and ffm). */
    public static Path library(String nativeLibrary) throws PeerException {
        if (nativeLibrary == null) {
            throw new PeerException(ErrorKind.USAGE, "--native-library is required");
        }
        Path path = Path.of(nativeLibrary).toAbsolutePath();
        if (!Files.isRegularFile(path)) {
            throw new PeerException(ErrorKind.IO, "native library " + path + " does not exist");
        }
        return path;
    }

    /**
     * ffm: a plain (non-critical) downcall with native buffers made once. Inside the timed
     * region: copy the request array into native memory, call, copy the response out into a new
     * array, the same marshalling work as jni's.
     */
    private static final class Ffm extends Call {
        private static final FunctionDescriptor SIGNATURE = FunctionDescriptor.of(JAVA_INT,
                ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        private final MethodHandle handle;
        private final MemorySegment requestSegment;
        private final MemorySegment responseSegment;

        Ffm(String nativeLibrary, int requestSize, int responseSize) throws PeerException {
            Path path = library(nativeLibrary);
            SymbolLookup lookup;
            try {
                lookup = SymbolLookup.libraryLookup(path, Arena.global());
            } catch (IllegalArgumentException e) {
                throw new PeerException(ErrorKind.IO, "cannot load " + path + ": " + e.getMessage(), e);
            }
            MemorySegment symbol = lookup.find("ipclab_call").orElseThrow(() ->
                    new PeerException(ErrorKind.IO, path + " has no symbol ipclab_call"));
            handle = Linker.nativeLinker().downcallHandle(symbol, SIGNATURE);
            requestSegment = Arena.global().allocate(Math.max(1, requestSize), 64);
            responseSegment = Arena.global().allocate(Math.max(1, responseSize), 64);
        }

        @Override
        public byte[] call(byte[] request, int responseSize, long seed, long sequence)
                throws Throwable {
            MemorySegment.copy(request, 0, requestSegment, JAVA_BYTE, 0, request.length);
            int rc = (int) handle.invokeExact(requestSegment, (long) request.length,
                    responseSegment, (long) responseSize, seed, sequence);
            if (rc != 0) {
                return null;
            }
            byte[] response = new byte[responseSize];
            MemorySegment.copy(responseSegment, JAVA_BYTE, 0, response, 0, responseSize);
            return response;
        }
    }

    /**
     * The thesis's Mock (seed 000, Listing 3.7: {@code getMockResponse} is
     * {@code new byte[responseSize]}, then {@code ResponseValidator.validateLength}): a new
     * zero-filled array of the response size per call, its length checked, nothing more. The
     * check is the thesis's way of keeping the JIT from dropping the allocation; the array also
     * escapes to the caller, which keeps it.
     */
    private static final class NewArray extends Call {
        @Override
        public byte[] call(byte[] request, int responseSize, long seed, long sequence) {
            byte[] response = new byte[responseSize];
            if (response.length != responseSize) {
                throw new IllegalStateException("the mock's response has " + response.length
                        + " bytes, expected " + responseSize);
            }
            return response;
        }

        @Override
        boolean filled() {
            return false;
        }
    }

    /**
     * none: no call; the response is made here as a server makes it: the cached base copied into
     * the response array, the first eight bytes stamped.
     */
    private static final class Own extends Call {
        private final byte[] base;
        private final byte[] response;
        private final long head;

        Own(long seed, int responseSize) {
            base = new byte[responseSize];
            Payload.base(seed, Payload.RESPONSE_STREAM, responseSize).get(0, base);
            response = new byte[responseSize];
            head = Payload.head(seed, Payload.RESPONSE_STREAM);
        }

        @Override
        public byte[] call(byte[] request, int responseSize, long seed, long sequence) {
            System.arraycopy(base, 0, response, 0, responseSize);
            long stamped = head ^ sequence;
            for (int j = 0, n = Math.min(8, responseSize); j < n; j++, stamped >>>= 8) {
                response[j] = (byte) stamped;
            }
            return response;
        }
    }
}
