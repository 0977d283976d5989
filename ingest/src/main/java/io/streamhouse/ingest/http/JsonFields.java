package io.streamhouse.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.pii.CardNumbers;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads fields from a JSON tree, collecting an error per bad field (with its full path) instead of stopping at the
 * first, so one answer tells the client everything it must fix.
 *
 * <p>No card number passes through here onto a topic or into an error (docs/pii.md): a field checked
 * against a pattern (an id, a key) that holds one is refused, a free-text field has it masked, and a field name that
 * is one is masked in the error that names it. Only {@code card.number} takes a card number, and tokenizes it.
 */
public final class JsonFields {
    /** Ids of aggregates (transactions, vehicles, parcels, hubs, merchants): what a record key may be. */
    public static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    public static final String ID_HINT = "must be 1-64 letters, digits or . _ : - starting with a letter or digit";
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Set<String> GEO_POINT = Set.of("lat", "lon");

    private final List<FieldError> errors = new ArrayList<>();

    public List<FieldError> errors() {
        return errors;
    }

    public void error(String path, String message) {
        errors.add(new FieldError(path, message));
    }

    /** The field's node, or null when it is absent or JSON null (recorded as an error if it is required). */
    private JsonNode present(JsonNode parent, String fieldPath, String name, boolean required) {
        JsonNode node = parent.get(name);
        if (node == null || node.isNull()) {
            if (required) {
                error(fieldPath, "is required");
            }
            return null;
        }
        return node;
    }

    public JsonNode object(JsonNode parent, String path, String name, boolean required) {
        String p = join(path, name);
        JsonNode node = present(parent, p, name, required);
        if (node == null) {
            return null;
        }
        if (!node.isObject()) {
            error(p, "must be an object");
            return null;
        }
        return node;
    }

    public String text(JsonNode parent, String path, String name, boolean required, int maxLength, Pattern pattern, String patternHint) {
        String p = join(path, name);
        JsonNode node = present(parent, p, name, required);
        if (node == null) {
            return null;
        }
        if (!node.isTextual()) {
            error(p, "must be a string");
            return null;
        }
        String value = node.asText();
        if (value.isBlank()) {
            error(p, "must not be blank");
            return null;
        }
        if (value.length() > maxLength) {
            error(p, "must be at most " + maxLength + " characters");
            return null;
        }
        if (pattern != null && !pattern.matcher(value).matches()) {
            error(p, patternHint);
            return null;
        }
        if (pattern != null && CardNumbers.contains(value)) {
            // An id or a key: masking would change what it names, so it is refused (without echoing it).
            error(p, "must not hold a card number");
            return null;
        }
        return CardNumbers.mask(value);
    }

    public BigDecimal decimal(JsonNode parent, String path, String name, boolean required) {
        String p = join(path, name);
        JsonNode node = present(parent, p, name, required);
        if (node == null) {
            return null;
        }
        // A decimal string keeps exactness; a JSON number is accepted as written (Jackson reads it as BigDecimal).
        try {
            if (node.isTextual()) {
                return new BigDecimal(node.asText().trim());
            }
            if (node.isNumber()) {
                return node.decimalValue();
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        error(p, "must be a decimal number, e.g. \"12.50\"");
        return null;
    }

    public Double number(JsonNode parent, String path, String name, boolean required, double min, double max) {
        String p = join(path, name);
        JsonNode node = present(parent, p, name, required);
        if (node == null) {
            return null;
        }
        if (!node.isNumber()) {
            error(p, "must be a number");
            return null;
        }
        double v = node.asDouble();
        if (Double.isNaN(v) || v < min || v > max) {
            error(p, "must be between " + plain(min) + " and " + plain(max));
            return null;
        }
        return v;
    }

    /** An optional client-chosen event id: a UUID, returned in lower case so that retries compare equal. */
    public String eventId(JsonNode parent, String path, String name) {
        String raw = text(parent, path, name, false, 36, UUID_TEXT, "must be a UUID, e.g. 0b6f2c1e-6f4a-4c8e-9a57-2f1d3c4b5a69");
        return raw == null ? null : raw.toLowerCase(java.util.Locale.ROOT);
    }

    /** A WGS84 position {"lat": -90..90, "lon": -180..180}; null when absent or invalid. */
    public GeoPoint geoPoint(JsonNode parent, String path, String name, boolean required) {
        String p = join(path, name);
        JsonNode node = object(parent, path, name, required);
        if (node == null) {
            return null;
        }
        rejectUnknown(node, p, GEO_POINT);
        Double lat = number(node, p, "lat", true, -90, 90);
        Double lon = number(node, p, "lon", true, -180, 180);
        return lat == null || lon == null ? null : GeoPoint.newBuilder().setLat(lat).setLon(lon).build();
    }

    public Instant instant(JsonNode parent, String path, String name, boolean required) {
        String raw = text(parent, path, name, required, 64, null, null);
        if (raw == null) {
            return null;
        }
        try {
            return Instant.parse(raw);
        } catch (DateTimeParseException e) {
            error(join(path, name), "must be an ISO-8601 instant, e.g. 2026-03-02T09:00:00Z");
            return null;
        }
    }

    public <E extends Enum<E>> E enumValue(JsonNode parent, String path, String name, boolean required, Class<E> type, Set<E> excluded) {
        String raw = text(parent, path, name, required, 64, null, null);
        if (raw == null) {
            return null;
        }
        try {
            E value = Enum.valueOf(type, raw);
            if (!excluded.contains(value)) {
                return value;
            }
        } catch (IllegalArgumentException e) {
            // falls through to the error below
        }
        List<String> allowed = new ArrayList<>();
        for (E c : type.getEnumConstants()) {
            if (!excluded.contains(c)) {
                allowed.add(c.name());
            }
        }
        error(join(path, name), "must be one of " + allowed);
        return null;
    }

    public void rejectUnknown(JsonNode node, String path, Set<String> known) {
        node.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) {
                error(join(path, CardNumbers.mask(f)), "is not a known field");
            }
        });
    }

    /** Runs a check that may throw IllegalArgumentException and records its message against a field. */
    public <T> T check(String path, Function<Void, T> check) {
        try {
            return check.apply(null);
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return null;
        }
    }

    private static String plain(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    public static String join(String path, String name) {
        return path == null || path.isEmpty() ? name : path + "." + name;
    }
}
