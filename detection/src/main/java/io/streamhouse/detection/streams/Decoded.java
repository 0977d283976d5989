package io.streamhouse.detection.streams;

/** A record's value after decoding: either the value, or the raw bytes that could not be decoded. */
public record Decoded<V>(V value, byte[] raw) {
    public static <V> Decoded<V> ok(V value) {
        return new Decoded<>(value, null);
    }

    public static <V> Decoded<V> failed(byte[] raw) {
        return new Decoded<>(null, raw);
    }

    public boolean isOk() {
        return raw == null;
    }
}
