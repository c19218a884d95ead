package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The structured payloads of PROTOCOL.md section 10.2. A record is held framework-neutral as a
 * map from field name to Integer, String, Boolean, Double or a List of those, in generation
 * order; each framework converts it to and from its generated type outside the timed region.
 */
public final class Structs {
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    /** Structured payloads only: 0 … 1000000 elements per sequence field (section 1). */
    public static final int MAX_SEQUENCE_LENGTH = 1_000_000;

    /** A field's type; the order of the constants is the generation order of section 10.2. */
    enum Type { INT, STRING, BOOL, DOUBLE, INT_SEQ, STRING_SEQ, DOUBLE_SEQ }

    record FieldSpec(String name, Type type) {}

    /** Small, Medium, Large: how many fields of each type, in {@link Type} order. */
    public enum Kind {
        SMALL(2, 1, 1, 0, 1, 0, 0),
        MEDIUM(4, 2, 2, 2, 1, 1, 0),
        LARGE(10, 8, 5, 5, 2, 2, 2);

        private final List<FieldSpec> fields;

        Kind(int... counts) {
            String[] prefixes = {"n", "s", "b", "d", "li", "ls", "ld"};
            List<FieldSpec> list = new ArrayList<>();
            for (Type type : Type.values()) {
                for (int i = 1; i <= counts[type.ordinal()]; i++) {
                    list.add(new FieldSpec(prefixes[type.ordinal()] + i, type));
                }
            }
            fields = Collections.unmodifiableList(list);
        }

        List<FieldSpec> fields() {
            return fields;
        }

        /** {@code small}, {@code medium}, {@code large}: the --payload value and REST route. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @return null for {@code bytes} */
        public static Kind byLabel(String label) {
            for (Kind kind : values()) {
                if (kind.label().equals(label)) {
                    return kind;
                }
            }
            return null;
        }
    }

    private Structs() {}

    /** The record of one case (section 10.2), not yet stamped. */
    public static Map<String, Object> generate(Kind kind, long seed, int sequenceLength) {
        return new Records(kind, seed, sequenceLength, false, false).next();
    }

    /**
     * The records a client calls with (section 10.2 and, since version 6, --value-range and
     * --records): one splitmix64 stream per case; record 1 is the case's record, record k + 1
     * continues from the state record k left. Not thread-safe (one client's).
     */
    public static final class Records {
        private final Kind kind;
        private final int sequenceLength;
        /** --value-range non-negative: ints are next() AND 0x7FFFFFFF (one next() each, too). */
        private final long intMask;
        /** --records per-call: every call takes the stream's next record. */
        private final boolean perCall;
        private final Payload.SplitMix random;
        private Map<String, Object> current;

        /**
         * @param nonNegative ints drawn as {@code next() AND 0x7FFFFFFF}, not as all 32 bits
         * @param perCall each {@link #next()} draws a new record, not the first one again
         */
        public Records(Kind kind, long seed, int sequenceLength, boolean nonNegative,
                boolean perCall) {
            this.kind = kind;
            this.sequenceLength = sequenceLength;
            this.intMask = nonNegative ? 0x7FFF_FFFFL : 0xFFFF_FFFFL;
            this.perCall = perCall;
            this.random = new Payload.SplitMix(seed, Payload.STRUCT_STREAM);
        }

        /** The next call's record, not stamped (callers stamp a copy: {@link #stamped}). */
        public Map<String, Object> next() {
            if (current == null || perCall) {
                current = draw();
            }
            return current;
        }

        /** One record, field by field in the order of section 10.2. */
        private Map<String, Object> draw() {
            Map<String, Object> record = new LinkedHashMap<>();
            for (FieldSpec field : kind.fields()) {
                record.put(field.name(), switch (field.type()) {
                    case INT -> nextInt();
                    case STRING -> nextString(random);
                    case BOOL -> nextBool(random);
                    case DOUBLE -> nextDouble(random);
                    case INT_SEQ -> sequence(sequenceLength, this::nextInt);
                    case STRING_SEQ -> sequence(sequenceLength, () -> nextString(random));
                    case DOUBLE_SEQ -> sequence(sequenceLength, () -> nextDouble(random));
                });
            }
            return record;
        }

        /** An int as two's complement of the masked draw (full: all 32 bits). */
        private int nextInt() {
            return (int) (random.next() & intMask);
        }
    }

    /** A copy with {@code n1 = sequence AND 0x7FFFFFFF}, so that a replayed answer fails. */
    public static Map<String, Object> stamped(Map<String, Object> record, long sequence) {
        Map<String, Object> copy = new LinkedHashMap<>(record);
        copy.put("n1", (int) (sequence & 0x7FFF_FFFFL));
        return copy;
    }

    /** @return the first field whose value differs (doubles compared bit for bit), or null */
    static String firstDifference(Kind kind, Map<String, Object> expected, Map<String, Object> actual) {
        for (FieldSpec field : kind.fields()) {
            if (!expected.get(field.name()).equals(actual.get(field.name()))) {
                return field.name();
            }
        }
        return null;
    }

    private static String nextString(Payload.SplitMix random) {
        int length = 4 + (int) Long.remainderUnsigned(random.next(), 29);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = ALPHABET.charAt((int) Long.remainderUnsigned(random.next(), 62));
        }
        return new String(chars);
    }

    private static boolean nextBool(Payload.SplitMix random) {
        return (random.next() & 1) == 1;
    }

    private static double nextDouble(Payload.SplitMix random) {
        return Math.scalb((double) (random.next() >>> 11), -33);
    }

    private static <T> List<T> sequence(int length, java.util.function.Supplier<T> element) {
        List<T> list = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            list.add(element.get());
        }
        return list;
    }

    // Conversions for generated types whose fields are named as in section 10.2 (Ice and CORBA
    // structs: public fields; RMI records: record components). Reflection runs outside the clock.

    /** A generated struct or record built from the neutral map. */
    static <T> T toObject(Class<T> type, Map<String, Object> record) {
        try {
            if (type.isRecord()) {
                RecordComponent[] components = type.getRecordComponents();
                Class<?>[] types = new Class<?>[components.length];
                Object[] args = new Object[components.length];
                for (int i = 0; i < components.length; i++) {
                    types[i] = components[i].getType();
                    args[i] = toJava(record.get(components[i].getName()), types[i]);
                }
                return type.getDeclaredConstructor(types).newInstance(args);
            }
            T value = type.getDeclaredConstructor().newInstance();
            for (Field field : type.getFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && record.containsKey(field.getName())) {
                    field.set(value, toJava(record.get(field.getName()), field.getType()));
                }
            }
            return value;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getName(), e);
        }
    }

    /** The neutral map of a generated struct or record. */
    static Map<String, Object> toMap(Kind kind, Object value) {
        Map<String, Object> record = new LinkedHashMap<>();
        try {
            Class<?> type = value.getClass();
            for (FieldSpec field : kind.fields()) {
                Object raw = type.isRecord()
                        ? type.getMethod(field.name()).invoke(value)
                        : type.getField(field.name()).get(value);
                record.put(field.name(), fromJava(raw));
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + value.getClass().getName(), e);
        }
        return record;
    }

    private static Object toJava(Object neutral, Class<?> target) {
        if (!(neutral instanceof List<?> list)) {
            return neutral;
        }
        if (target.isArray()) {
            Object array = Array.newInstance(target.getComponentType(), list.size());
            for (int i = 0; i < list.size(); i++) {
                Array.set(array, i, list.get(i));
            }
            return array;
        }
        return new ArrayList<>(list);
    }

    private static Object fromJava(Object raw) {
        if (raw != null && raw.getClass().isArray()) {
            int length = Array.getLength(raw);
            List<Object> list = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                list.add(Array.get(raw, i));
            }
            return list;
        }
        if (raw instanceof List<?> list) {
            return new ArrayList<Object>(list);
        }
        return raw;
    }
}
