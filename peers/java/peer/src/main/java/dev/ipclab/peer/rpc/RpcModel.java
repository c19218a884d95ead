package dev.ipclab.peer.rpc;

/**
 * One of a framework's own server configurations under load (PROTOCOL.md 11.5.4), by the name
 * {@code serve --pattern load --server-model} and {@code load_models} give it.
 */
public record RpcModel(String name, RpcServer.Factory factory) {}
