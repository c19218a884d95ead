package dev.ipclab.peer.transport;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/** The number syntax of PROTOCOL.md section 1: plain ASCII decimal, no sign, no spaces. */
public final class Numbers {
    private static final Pattern UNSIGNED = Pattern.compile("[0-9]+");
    private static final Pattern DECIMAL = Pattern.compile("[0-9]+(\\.[0-9]+)?");
    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private Numbers() {}

    /**
     * An unsigned 64-bit decimal; the result is the two's-complement long (see
     * Long.toUnsignedString).
     *
     * @throws IllegalArgumentException if the text is not digits only or overflows 64 bits
     */
    public static long unsigned(String text, String what) {
        // The pattern first: Long.parseUnsignedLong would accept a '+' and non-ASCII digits.
        if (!UNSIGNED.matcher(text).matches()) {
            throw new IllegalArgumentException(what + " must be an unsigned decimal integer, got '"
                    + text + "'");
        }
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " does not fit in 64 bits: " + text);
        }
    }

    /** An unsigned decimal that must also lie in [min, max]. */
    public static long inRange(String text, String what, long min, long max) {
        long value = unsigned(text, what);
        if (value < 0 || value < min || value > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", got "
                    + text);
        }
        return value;
    }

    /** A positive number of seconds such as {@code 30} or {@code 0.5}, returned in nanoseconds. */
    public static long positiveSecondsAsNanos(String text, String what) {
        if (!DECIMAL.matcher(text).matches()) {
            throw new IllegalArgumentException(what + " must be a positive decimal number of seconds,"
                    + " got '" + text + "'");
        }
        BigDecimal nanos = new BigDecimal(text).multiply(NANOS_PER_SECOND)
                .setScale(0, RoundingMode.CEILING);
        if (nanos.signum() <= 0) {
            throw new IllegalArgumentException(what + " must be greater than 0, got " + text);
        }
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException(what + " is too large: " + text);
        }
        return nanos.longValueExact();
    }
}
