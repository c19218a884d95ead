package dev.ipclab.peer.frame;

import dev.ipclab.linuxipc.ResourceUsage;
import java.nio.ByteBuffer;

/**
 * A stream's END_ACK payload (PROTOCOL.md section 11.1 step 4), seven u64: what the server
 * received since MARK, its gaps and checksum, and its own CPU time and context switches over the
 * same span.
 */
public record StreamAck(long received, long gaps, long checksum, ResourceUsage cpu) {
    public static StreamAck read(ByteBuffer buf, int offset) {
        return new StreamAck(buf.getLong(offset), buf.getLong(offset + 8), buf.getLong(offset + 16),
                new ResourceUsage(buf.getLong(offset + 24), buf.getLong(offset + 32),
                        buf.getLong(offset + 40), buf.getLong(offset + 48)));
    }

    public void write(ByteBuffer buf, int offset) {
        buf.putLong(offset, received);
        buf.putLong(offset + 8, gaps);
        buf.putLong(offset + 16, checksum);
        buf.putLong(offset + 24, cpu.userNanos());
        buf.putLong(offset + 32, cpu.systemNanos());
        buf.putLong(offset + 40, cpu.voluntary());
        buf.putLong(offset + 48, cpu.involuntary());
    }
}
