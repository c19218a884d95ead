package dev.ipclab.peer;

import dev.ipclab.linuxipc.LinuxIpc;
import java.util.Map;

/**
 * The drive flags of contract version 3 that reproduce one study as it was run (PROTOCOL.md
 * section 1): {@code --void}, {@code --nodelay}, {@code --rest-body}, {@code --corba-payload},
 * {@code --one-way}; since, {@code --java-binding} (4.6) and {@code --delivery} (4.7); since
 * version 6, {@code --source}, {@code --value-range}, {@code --records}, {@code --mock} and
 * {@code --jni-arrays}. The defaults are the behaviour before them.
 *
 * @param voidCalls --void: RPC rr calls put / putSmall / putMedium / putLarge (10.1)
 * @param nodelay --nodelay on (true, the default) or off (Nagle's algorithm left on)
 * @param restJson --rest-body json: bytes travel as {"data": "<base64>"} (idl/rest.md)
 * @param corbaString --corba-payload string: corba calls callString (10.1)
 * @param oneWay --one-way: short without a RESPONSE (11.2)
 * @param javaBinding --java-binding: how the IPC library calls C (4.6), ffm by default
 * @param delivery --delivery (activemq, 4.7); null when absent
 * @param oneSource --source one: short over tcp connects from the kernel's choice of source
 *     address (127.0.0.1, an ephemeral port), no bind (11.2)
 * @param nonNegative --value-range non-negative: 10.2's ints are next() AND 0x7FFFFFFF
 * @param recordsPerCall --records per-call: each call takes the next record of 10.2's stream
 * @param mockNewArray --mock new-array: none makes a new zero-filled response array per call,
 *     the thesis's Mock (4.4)
 * @param jniArraysCopy --jni-arrays copy: jni calls NativeCall.callCopy, the thesis's
 *     marshalling (4.4)
 */
record Study(boolean voidCalls, boolean nodelay, boolean restJson, boolean corbaString,
        boolean oneWay, LinuxIpc.Binding javaBinding, Delivery delivery, boolean oneSource,
        boolean nonNegative, boolean recordsPerCall, boolean mockNewArray,
        boolean jniArraysCopy) {
    static final Study DEFAULT = new Study(false, true, false, false, false,
            LinuxIpc.Binding.FFM, null, false, false, false, false, false);

    /**
     * The study flags of a drive (section 1): --rest-body json and --corba-payload string with
     * bytes payloads only, --value-range and --records with structured payloads only. Which
     * pattern takes --void (rr), --one-way and --source (short) is its {@link Pattern} entry's,
     * checked before; whether the mechanism has them is the client's question (unsupported,
     * exit 7).
     */
    static Study of(Map<String, String> flags, boolean structured) {
        boolean voidCalls = flags.containsKey("void");
        boolean oneWay = flags.containsKey("one-way");
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
        boolean nonNegative = Cli.choice(flags, "value-range", "full", "non-negative");
        boolean recordsPerCall = Cli.choice(flags, "records", "one", "per-call");
        if (!structured && (nonNegative || recordsPerCall)) {
            throw new IllegalArgumentException("--value-range non-negative and --records per-call "
                    + "shape structured payloads (--payload small, medium, large) only");
        }
        return new Study(voidCalls, Cli.nodelay(flags), restJson, corbaString, oneWay,
                Cli.javaBinding(flags), Delivery.parse(flags),
                Cli.choice(flags, "source", "rotate", "one"), nonNegative, recordsPerCall,
                Cli.choice(flags, "mock", "copy", "new-array"),
                Cli.choice(flags, "jni-arrays", "critical", "copy"));
    }
}
