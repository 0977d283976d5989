package io.streamhouse.ingest.cdc;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Raw change values waiting to be completed (an order waiting for its lines, a registration waiting for its address),
 * as stored in the normaliser's pending store: a count, then each value length-prefixed. The raw wire-format bytes
 * are kept rather than decoded rows so the store needs no schema of its own.
 */
final class PendingRows {

    private PendingRows() {
    }

    static byte[] encode(List<byte[]> values) {
        int size = 4;
        for (byte[] v : values) {
            size += 4 + v.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(values.size());
        for (byte[] v : values) {
            out.putInt(v.length).put(v);
        }
        return out.array();
    }

    static List<byte[]> decode(byte[] stored) {
        List<byte[]> values = new ArrayList<>();
        if (stored == null) {
            return values;
        }
        ByteBuffer in = ByteBuffer.wrap(stored);
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[in.getInt()];
            in.get(v);
            values.add(v);
        }
        return values;
    }

    static byte[] append(byte[] stored, byte[] value) {
        List<byte[]> values = decode(stored);
        values.add(value);
        return encode(values);
    }
}
