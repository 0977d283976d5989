package io.streamhouse.api.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The instance-to-instance format of a forwarded lookup: JSON around the Avro binary of the state value, so that the
 * asking instance gets back exactly the typed value its own store would have returned (both run the same build).
 */
public final class StateCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static <V extends SpecificRecord> byte[] encode(Lookup<V> lookup) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (lookup instanceof Lookup.Found<V> found) {
            body.put("found", true);
            body.put("value", Base64.getEncoder().encodeToString(avro(found.value())));
            body.put("version", found.version().toEpochMilli());
            body.put("validTo", found.validTo() == null ? null : found.validTo().toEpochMilli());
            body.put("freshness", freshness(found.freshness()));
        } else if (lookup instanceof Lookup.NotFound<V> notFound) {
            body.put("found", false);
            body.put("freshness", freshness(notFound.freshness()));
        } else {
            body.put("unavailable", ((Lookup.Unavailable<V>) lookup).reason());
        }
        return write(body);
    }

    public static <V extends SpecificRecord> Lookup<V> decode(byte[] bytes, Class<V> type) {
        try {
            JsonNode body = JSON.readTree(bytes);
            if (body.has("unavailable")) {
                return new Lookup.Unavailable<>(body.get("unavailable").asText());
            }
            Freshness freshness = freshness(body.get("freshness"));
            if (!body.get("found").asBoolean()) {
                return new Lookup.NotFound<>(freshness);
            }
            V value = fromAvro(Base64.getDecoder().decode(body.get("value").asText()), type);
            JsonNode validTo = body.get("validTo");
            return new Lookup.Found<>(value, Instant.ofEpochMilli(body.get("version").asLong()),
                    validTo == null || validTo.isNull() ? null : Instant.ofEpochMilli(validTo.asLong()), freshness);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable answer from another instance", e);
        }
    }

    /** A page of values (the alert feed) with their keys. */
    public static <V extends SpecificRecord> byte[] encodePage(List<Map.Entry<String, V>> entries, List<Integer> missing) {
        List<Map<String, String>> items = new ArrayList<>();
        for (var e : entries) {
            items.add(Map.of("key", e.getKey(), "value", Base64.getEncoder().encodeToString(avro(e.getValue()))));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("missingPartitions", missing);
        return write(body);
    }

    public record Page<V>(List<Map.Entry<String, V>> entries, List<Integer> missingPartitions) {
    }

    public static <V extends SpecificRecord> Page<V> decodePage(byte[] bytes, Class<V> type) {
        try {
            JsonNode body = JSON.readTree(bytes);
            List<Map.Entry<String, V>> entries = new ArrayList<>();
            for (JsonNode item : body.get("items")) {
                entries.add(Map.entry(item.get("key").asText(), fromAvro(Base64.getDecoder().decode(item.get("value").asText()), type)));
            }
            List<Integer> missing = new ArrayList<>();
            body.get("missingPartitions").forEach(n -> missing.add(n.asInt()));
            return new Page<>(entries, missing);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable answer from another instance", e);
        }
    }

    private static Map<String, Object> freshness(Freshness f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lastEventAt", f.lastEventAt() == null ? null : f.lastEventAt().toEpochMilli());
        m.put("lagRecords", f.lagRecords());
        m.put("lagAgeMs", f.lagAgeMs());
        m.put("stale", f.stale());
        m.put("servedBy", f.servedBy());
        return m;
    }

    private static Freshness freshness(JsonNode n) {
        JsonNode last = n.get("lastEventAt");
        JsonNode lag = n.get("lagRecords");
        JsonNode lagAge = n.get("lagAgeMs");
        return new Freshness(last == null || last.isNull() ? null : Instant.ofEpochMilli(last.asLong()),
                lag == null || lag.isNull() ? null : lag.asLong(), lagAge == null || lagAge.isNull() ? null : lagAge.asLong(),
                n.get("stale").asBoolean(), n.get("servedBy").asText());
    }

    private static byte[] write(Map<String, Object> body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <V extends SpecificRecord> byte[] avro(V value) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            @SuppressWarnings("unchecked")
            Class<V> type = (Class<V>) value.getClass();
            // The class's own model carries its logical-type conversions (timestamps as Instant, decimals).
            new SpecificDatumWriter<>(type).write(value, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <V extends SpecificRecord> V fromAvro(byte[] bytes, Class<V> type) throws IOException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
        return new SpecificDatumReader<>(type).read(null, decoder);
    }

    private StateCodec() {
    }
}
