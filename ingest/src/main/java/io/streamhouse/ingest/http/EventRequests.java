package io.streamhouse.ingest.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.intake.EventIntake;
import io.streamhouse.ingest.intake.Submission;
import io.streamhouse.ingest.kafka.Accepted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import org.apache.avro.specific.SpecificRecord;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What every event endpoint does with a body, in one place: read the JSON as a tree (malformed → 400 naming where
 * it broke), take one object or, where allowed, an array of 1..max-batch, validate every item collecting every bad
 * field (→ one 422), refuse two items with the same event id, hand the events to {@link EventIntake}
 * (429 / 409 / 503 come from there) and answer 202 with where each event is, one object or an array in request
 * order. A batch is all-or-nothing at validation; see {@link EventIntake} for what a failed write leaves behind.
 */
@ApplicationScoped
public class EventRequests {

    /** Validates one item; returns null when {@code fields} holds its errors. */
    @FunctionalInterface
    public interface ItemParser<V extends SpecificRecord> {
        Submission<V> parse(JsonNode item, String path, Instant recordedAt, JsonFields fields);
    }

    private final ObjectMapper json;
    private final EventIntake intake;
    private final Clock clock;
    private final int maxBatch;

    public EventRequests(ObjectMapper json, EventIntake intake, Clock clock, IngestConfig config) {
        this.json = json;
        this.intake = intake;
        this.clock = clock;
        this.maxBatch = config.maxBatch();
    }

    /** Reads and validates exactly one item (a JSON object); throws {@link ValidationException} naming every bad field. */
    public <V extends SpecificRecord> Submission<V> parseOne(String raw, ItemParser<V> parser) throws JsonProcessingException {
        JsonNode body = raw == null || raw.isBlank() ? null : json.readTree(raw);
        if (body == null || !body.isObject()) {
            throw new ValidationException(List.of(new FieldError("$", "a JSON object is required")));
        }
        var fields = new JsonFields();
        Submission<V> submission = parser.parse(body, "", clock.instant(), fields);
        if (!fields.errors().isEmpty()) {
            throw new ValidationException(fields.errors());
        }
        return submission;
    }

    /**
     * @param what       what an item is, for messages ("transactions", "readings")
     * @param allowBatch whether a JSON array of items is accepted
     */
    public <V extends SpecificRecord> Response submit(String raw, Topic<String, V> topic, String what, boolean allowBatch,
                                                      ItemParser<V> parser) throws JsonProcessingException {
        // Parsed here, not by the framework, so that malformed JSON gets a problem document naming where it broke.
        JsonNode body = raw == null || raw.isBlank() ? null : json.readTree(raw);
        if (body == null || !(body.isObject() || (allowBatch && body.isArray()))) {
            throw new ValidationException(List.of(new FieldError("$",
                    allowBatch ? "a JSON object or an array of " + what + " is required" : "a JSON object is required")));
        }
        Instant recordedAt = clock.instant();
        var fields = new JsonFields();
        List<Submission<V>> events = new ArrayList<>();
        if (body.isArray()) {
            if (body.isEmpty() || body.size() > maxBatch) {
                throw new ValidationException(List.of(new FieldError("$", "a batch holds 1 to " + maxBatch + " " + what)));
            }
            Map<String, Integer> firstIndexOfEventId = new HashMap<>();
            for (int i = 0; i < body.size(); i++) {
                Submission<V> s = parser.parse(body.get(i), "[" + i + "]", recordedAt, fields);
                if (s != null) {
                    Integer first = firstIndexOfEventId.putIfAbsent(s.eventId(), i);
                    if (first != null) {
                        fields.error("[" + i + "]." + s.eventIdField(), "repeats item [" + first + "] of this batch (same event id)");
                    }
                }
                events.add(s);
            }
        } else {
            events.add(parser.parse(body, "", recordedAt, fields));
        }
        if (!fields.errors().isEmpty()) {
            throw new ValidationException(fields.errors());
        }
        List<Accepted> accepted = intake.acceptWithinLimit(topic, events);
        return Response.accepted(body.isArray() ? accepted : accepted.get(0)).build();
    }
}
