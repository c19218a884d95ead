package dev.ipclab.peer;

/**
 * The drive flags of contract version 3 that reproduce one study as it was run (PROTOCOL.md
 * section 1): {@code --void}, {@code --nodelay}, {@code --rest-body}, {@code --corba-payload},
 * {@code --one-way}. The defaults are the behaviour before them.
 *
 * @param voidCalls --void: RPC rr calls put / putSmall / putMedium / putLarge (10.1)
 * @param nodelay --nodelay on (true, the default) or off (Nagle's algorithm left on)
 * @param restJson --rest-body json: bytes travel as {"data": "<base64>"} (idl/rest.md)
 * @param corbaString --corba-payload string: corba calls callString (10.1)
 * @param oneWay --one-way: short without a RESPONSE (11.2)
 * @param jniBinding --java-binding jni: the IPC library calls C through JNI, not FFM (4.6)
 */
record Study(boolean voidCalls, boolean nodelay, boolean restJson, boolean corbaString,
        boolean oneWay, boolean jniBinding) {
    static final Study DEFAULT = new Study(false, true, false, false, false, false);
}
