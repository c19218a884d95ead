package dev.ipclab.peer.pattern;

/**
 * {@code --pattern stream} (PROTOCOL.md section 11.1): S bytes per message, N messages, W
 * windows; then request and response sizes and iterations are 0 (not given).
 */
public record StreamShape(int messageSize, long messages, long windows) {}
