package io.streamhouse.plumbing;

/**
 * A record's value after decoding: the value with the raw bytes it was decoded from, or only the raw bytes that could
 * not be decoded. A step that may still have to dead-letter a decoded record (a conflict found later) writes the raw
 * bytes as they were read instead of encoding the value again.
 */
public record Decoded<V>(V value, byte[] raw) {
    public static <V> Decoded<V> ok(V value, byte[] raw) {
        return new Decoded<>(java.util.Objects.requireNonNull(value, "value"), raw);
    }

    public static <V> Decoded<V> failed(byte[] raw) {
        return new Decoded<>(null, raw);
    }

    public boolean isOk() {
        return value != null;
    }
}
