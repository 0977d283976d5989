package io.streamhouse.replay;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * A store's contents per partition, as its changelog says: for a plain key-value store the last value written per
 * key, for a versioned store the value with the newest timestamp (what {@code get(key)} answers; the later write wins a
 * tie). A tombstone removes the key. Values are the serialized bytes, so two stores are equal exactly when their
 * bytes are.
 */
final class StoreState {
    private record Version(byte[] value, long timestamp) {
    }

    private final boolean versioned;
    private final Map<Integer, Map<String, Version>> partitions = new TreeMap<>();

    StoreState(boolean versioned, int partitionCount) {
        this.versioned = versioned;
        for (int p = 0; p < partitionCount; p++) {
            partitions.put(p, new HashMap<>());
        }
    }

    void apply(int partition, byte[] key, byte[] value, long timestamp) {
        Map<String, Version> keys = partitions.computeIfAbsent(partition, p -> new HashMap<>());
        String k = new String(key, StandardCharsets.UTF_8);
        Version current = keys.get(k);
        if (versioned && current != null && current.timestamp() > timestamp) {
            return;
        }
        keys.put(k, new Version(value, timestamp));
    }

    Map<Integer, Map<String, byte[]>> contents() {
        Map<Integer, Map<String, byte[]>> out = new TreeMap<>();
        partitions.forEach((p, keys) -> {
            Map<String, byte[]> live = new TreeMap<>();
            keys.forEach((k, v) -> {
                if (v.value() != null) {
                    live.put(k, v.value());
                }
            });
            out.put(p, live);
        });
        return out;
    }

    /** Order-independent digest of one partition: the sum, modulo 2^64, of a SHA-256 prefix of each key and value. */
    static String digest(Map<String, byte[]> keys) {
        long sum = 0;
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (var e : keys.entrySet()) {
            byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
            sha.update(ByteBuffer.allocate(4).putInt(k.length).array());
            sha.update(k);
            sum += ByteBuffer.wrap(sha.digest(e.getValue())).getLong();
        }
        return HexFormat.of().toHexDigits(sum);
    }
}
