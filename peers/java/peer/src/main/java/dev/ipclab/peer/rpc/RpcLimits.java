package dev.ipclab.peer.rpc;

/** Sizes of section 10.1: payloads up to MAX_PAYLOAD, framework limits raised well above it. */
final class RpcLimits {
    static final int MAX_PAYLOAD = 134_217_728;
    /**
     * Every framework's message limit: 512 MiB, "at least 256 MiB" with room for a 128 MiB
     * payload plus its encoding overhead (Ice and REST have no other per-byte growth).
     */
    static final int MESSAGE_LIMIT = 512 * 1024 * 1024;

    private RpcLimits() {}
}
