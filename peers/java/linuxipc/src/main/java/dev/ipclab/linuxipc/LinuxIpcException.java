package dev.ipclab.linuxipc;

import java.io.IOException;

/**
 * A Linux IPC call failed: carries the C {@code errno} value and the C library's text for it
 * ({@code strerror}).
 */
public class LinuxIpcException extends IOException {
    private static final long serialVersionUID = 1L;

    /** errno: permission denied. */
    public static final int EACCES = Libc.EACCES;
    /** errno: no such file, key or name. */
    public static final int ENOENT = Libc.ENOENT;
    /** errno: the object exists (exclusive create). */
    public static final int EEXIST = Libc.EEXIST;
    /** errno: the object was removed while the caller waited on it. */
    public static final int EIDRM = Libc.EIDRM;
    /** errno: the call would block (non-blocking call). */
    public static final int EAGAIN = Libc.EAGAIN;
    /** errno: no message of the wanted type (msgrcv with IPC_NOWAIT). */
    public static final int ENOMSG = Libc.ENOMSG;
    /** errno: a timed wait expired. */
    public static final int ETIMEDOUT = Libc.ETIMEDOUT;
    /** errno: invalid argument. */
    public static final int EINVAL = Libc.EINVAL;
    /** errno: the call was interrupted by a signal. */
    public static final int EINTR = Libc.EINTR;
    /** errno: a datagram is longer than the socket's send buffer allows. */
    public static final int EMSGSIZE = Libc.EMSGSIZE;
    /** errno: the kernel cannot allocate a buffer that large. */
    public static final int ENOBUFS = Libc.ENOBUFS;
    /** errno: the address (e.g. a socket path) is in use. */
    public static final int EADDRINUSE = 98;
    /** errno: nobody listens at the address. */
    public static final int ECONNREFUSED = 111;
    /** errno: a System V message is longer than the buffer given to msgrcv. */
    public static final int E2BIG = 7;

    /** The errno value of the failed call. */
    private final int errno;
    /** The name of the failed call, e.g. {@code msgget}. */
    private final String call;

    /**
     * Creates the exception for a failed call.
     *
     * @param call the C function that failed, e.g. {@code msgget}
     * @param errno the errno value it left
     */
    public LinuxIpcException(String call, int errno) {
        super(call + ": " + Libc.strerror(errno) + " (errno " + errno + ")");
        this.call = call;
        this.errno = errno;
    }

    /**
     * The errno value the call left.
     *
     * @return errno, e.g. {@link #ENOENT}
     */
    public int errno() {
        return errno;
    }

    /**
     * The C function that failed.
     *
     * @return its name
     */
    public String call() {
        return call;
    }

    /**
     * The C library's description of the errno ({@code strerror}).
     *
     * @return e.g. "No such file or directory"
     */
    public String strerror() {
        return Libc.strerror(errno);
    }

    /**
     * True if a timed wait expired ({@code ETIMEDOUT}, or {@code EAGAIN} as semtimedop reports it).
     *
     * @return whether this is a timeout
     */
    public boolean isTimeout() {
        return errno == Libc.ETIMEDOUT || errno == Libc.EAGAIN;
    }
}
