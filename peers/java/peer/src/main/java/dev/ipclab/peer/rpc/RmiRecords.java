package dev.ipclab.peer.rpc;

import java.io.Serializable;

/** The records of section 10.2 for RMI: serializable, with the contract's field names. */
public final class RmiRecords {
    private RmiRecords() {}

    public record Small(int n1, int n2, String s1, boolean b1, int[] li1) implements Serializable {}

    public record Medium(int n1, int n2, int n3, int n4, String s1, String s2, boolean b1,
            boolean b2, double d1, double d2, int[] li1, String[] ls1) implements Serializable {}

    public record Large(int n1, int n2, int n3, int n4, int n5, int n6, int n7, int n8, int n9,
            int n10, String s1, String s2, String s3, String s4, String s5, String s6, String s7,
            String s8, boolean b1, boolean b2, boolean b3, boolean b4, boolean b5, double d1,
            double d2, double d3, double d4, double d5, int[] li1, int[] li2, String[] ls1,
            String[] ls2, double[] ld1, double[] ld2) implements Serializable {}
}
