package dev.ipclab.linuxipc;

/** Bounds checks shared by the shared-memory classes. */
final class Bounds {
    private Bounds() {}

    static void check(long offset, long length, long size) {
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + " + " + length
                    + ") outside a segment of " + size + " bytes");
        }
    }

    static void checkArray(byte[] array, int off, int len) {
        if (off < 0 || len < 0 || off > array.length - len) {
            throw new IndexOutOfBoundsException("range [" + off + ", " + off + " + " + len
                    + ") outside an array of " + array.length);
        }
    }
}
