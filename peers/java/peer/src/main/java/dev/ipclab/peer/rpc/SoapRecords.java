package dev.ipclab.peer.rpc;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The neutral records of section 10.2 to and from wsimport's JAXB classes (Small, Medium,
 * Large). Those are beans, not public fields: a scalar has {@code setX} and {@code getX} (a
 * boolean {@code isX}), a repeated element only a getter returning the live list. Reflection
 * runs outside the clock, as for the other frameworks' records.
 */
final class SoapRecords {
    private SoapRecords() {}

    /** {@code bean} (an empty record of the kind) filled from the neutral map; returns it. */
    static Object toBean(Object bean, Structs.Kind kind, Map<String, Object> record) {
        try {
            for (Structs.FieldSpec field : kind.fields()) {
                Object value = record.get(field.name());
                if (value instanceof List<?> list) {
                    listOf(bean, field).addAll(list);
                } else {
                    setter(bean.getClass(), field).invoke(bean, value);
                }
            }
            return bean;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot fill " + bean.getClass().getName(), e);
        }
    }

    /** The neutral map of a record (lists copied, so the bean's own list is not kept). */
    static Map<String, Object> toMap(Structs.Kind kind, Object bean) {
        Map<String, Object> record = new LinkedHashMap<>();
        try {
            for (Structs.FieldSpec field : kind.fields()) {
                Object value = getter(bean.getClass(), field).invoke(bean);
                record.put(field.name(), value instanceof List<?> list ? new ArrayList<>(list)
                        : value);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + bean.getClass().getName(), e);
        }
        return record;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> listOf(Object bean, Structs.FieldSpec field)
            throws ReflectiveOperationException {
        return (List<Object>) getter(bean.getClass(), field).invoke(bean);
    }

    private static Method getter(Class<?> type, Structs.FieldSpec field)
            throws NoSuchMethodException {
        String prefix = field.type() == Structs.Type.BOOL ? "is" : "get";
        return type.getMethod(prefix + capitalized(field.name()));
    }

    /** xsd:int, xsd:boolean and xsd:double are primitives in JAXB's beans, xsd:string a String. */
    private static Method setter(Class<?> type, Structs.FieldSpec field)
            throws NoSuchMethodException {
        Class<?> parameter = switch (field.type()) {
            case INT -> int.class;
            case BOOL -> boolean.class;
            case DOUBLE -> double.class;
            default -> String.class;
        };
        return type.getMethod("set" + capitalized(field.name()), parameter);
    }

    private static String capitalized(String name) {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }
}
