package dev.ipclab.peer;

import java.util.Map;

/**
 * The drive flags of contract version 3 that reproduce one study as it was run (PROTOCOL.md
 * section 1): {@code --void}, {@code --nodelay}, {@code --rest-body}, {@code --corba-payload},
 * {@code --one-way}; since, {@code --java-binding} (4.6) and {@code --delivery} (4.7). The
 * defaults are the behaviour before them.
 *
 * @param voidCalls --void: RPC rr calls put / putSmall / putMedium / putLarge (10.1)
 * @param nodelay --nodelay on (true, the default) or off (Nagle's algorithm left on)
 * @param restJson --rest-body json: bytes travel as {"data": "<base64>"} (idl/rest.md)
 * @param corbaString --corba-payload string: corba calls callString (10.1)
 * @param oneWay --one-way: short without a RESPONSE (11.2)
 * @param jniBinding --java-binding jni: the IPC library calls C through JNI, not FFM (4.6)
 * @param delivery --delivery (activemq, 4.7); null when absent
 */
record Study(boolean voidCalls, boolean nodelay, boolean restJson, boolean corbaString,
        boolean oneWay, boolean jniBinding, Delivery delivery) {
    static final Study DEFAULT = new Study(false, true, false, false, false, false, null);

    /**
     * The study flags of a drive (section 1): --void with rr only, --one-way with short only;
     * --rest-body json and --corba-payload string with bytes payloads only. Whether the mechanism
     * has them is the client's question (unsupported, exit 7).
     */
    static Study of(Map<String, String> flags, String pattern, boolean structured) {
        boolean voidCalls = flags.containsKey("void");
        boolean oneWay = flags.containsKey("one-way");
        if (voidCalls && !pattern.equals(Pattern.RR.label())) {
            throw new IllegalArgumentException("--void is a flag of --pattern rr only");
        }
        if (oneWay && !pattern.equals(Pattern.SHORT.label())) {
            throw new IllegalArgumentException("--one-way is a flag of --pattern short only");
        }
        boolean restJson = Cli.choice(flags, "rest-body", "octet", "json");
        boolean corbaString = Cli.choice(flags, "corba-payload", "octets", "string");
        if (structured && (restJson || corbaString)) {
            throw new IllegalArgumentException("--rest-body json and --corba-payload string carry "
                    + "bytes payloads only");
        }
        if (voidCalls && corbaString) {
            throw new IllegalArgumentException("--corba-payload string has no void operation "
                    + "(--void calls put)");
        }
        return new Study(voidCalls, Cli.nodelay(flags), restJson, corbaString, oneWay,
                Cli.jniBinding(flags), Delivery.parse(flags));
    }
}
