package io.streamhouse.ingest.mqtt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.http.JsonFields;
import io.streamhouse.ingest.intake.ConflictException;
import io.streamhouse.ingest.intake.EventIntake;
import io.streamhouse.ingest.kafka.Accepted;
import io.streamhouse.ingest.kafka.EventLog;
import io.streamhouse.ingest.kafka.PublishException;
import io.streamhouse.ingest.telemetry.TelemetryParser;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What happens to one MQTT telemetry message, independent of the MQTT client: a valid reading goes to
 * {@code fleet.vehicles.telemetry} through {@link EventIntake} (so a redelivered message is recognised by its event
 * id), anything else — unparseable topic, malformed JSON, invalid fields, a reused event id — goes byte for byte to
 * {@code fleet.vehicles.telemetry.dlq} with the reason and the MQTT topic in headers. Nothing is dropped: when
 * neither write is acknowledged, {@link PublishException} tells the bridge not to acknowledge the message.
 *
 * <p>The topic names the vehicle: {@code fleet/{vehicleId}/telemetry}. The body's {@code vehicleId} must be that
 * vehicle or absent.
 *
 * <p>A dead letter keeps the payload byte for byte except card numbers, which are masked in it, in its key, its
 * MQTT-topic header and its reason (docs/pii.md): a dead-letter topic is a topic like any other.
 */
@ApplicationScoped
public class TelemetryMessages {
    static final String SOURCE = "ingest-mqtt";
    static final String PROCESSOR = "ingest-mqtt-bridge";
    /** The same limit as the HTTP body limit (512 KiB). */
    static final int MAX_PAYLOAD = 512 * 1024;
    static final Topic<byte[], byte[]> DEAD_LETTERS = Topics.deadLetterOf(Topics.VEHICLE_TELEMETRY);

    /** What became of a message. */
    public sealed interface Outcome permits Written, DeadLettered {
    }

    public record Written(Accepted accepted) implements Outcome {
    }

    public record DeadLettered(String reason, int partition, long offset) implements Outcome {
    }

    private final ObjectMapper json;
    private final EventIntake intake;
    private final EventLog log;
    private final Clock clock;
    private final TelemetryParser parser = new TelemetryParser(SOURCE);

    public TelemetryMessages(ObjectMapper json, EventIntake intake, EventLog log, Clock clock) {
        this.json = json;
        this.intake = intake;
        this.log = log;
        this.clock = clock;
    }

    /** @throws PublishException when the log acknowledged neither the reading nor its dead letter */
    public Outcome handle(String mqttTopic, byte[] payload) {
        String vehicleId = vehicleIdOf(mqttTopic);
        if (payload.length > MAX_PAYLOAD) {
            // Kept whole it might not fit a Kafka record, and a dead letter that cannot be written would come back forever.
            return deadLetter(mqttTopic, vehicleId, Arrays.copyOf(payload, MAX_PAYLOAD), "payload of " + payload.length
                    + " bytes is over the " + MAX_PAYLOAD + " accepted; only its first " + MAX_PAYLOAD + " bytes are kept here", null);
        }
        if (vehicleId == null) {
            return deadLetter(mqttTopic, null, payload, "the MQTT topic does not have the form fleet/{vehicleId}/telemetry", null);
        }
        if (CardNumbers.contains(vehicleId)) {
            return deadLetter(mqttTopic, null, payload, "the vehicle id in the MQTT topic must not hold a card number", null);
        }
        JsonNode body;
        try {
            body = json.readTree(payload);
        } catch (JsonProcessingException e) {
            var l = e.getLocation();
            return deadLetter(mqttTopic, vehicleId, payload, "not valid JSON"
                    + (l == null ? "" : " at line " + l.getLineNr() + ", column " + l.getColumnNr()), e);
        } catch (IOException e) {
            return deadLetter(mqttTopic, vehicleId, payload, "not readable as JSON: " + e.getMessage(), e);
        }
        if (body == null || body.isMissingNode()) {
            return deadLetter(mqttTopic, vehicleId, payload, "empty payload: a JSON object is required", null);
        }
        try {
            var fields = new JsonFields();
            var reading = parser.parse(body, "", clock.instant(), fields, vehicleId);
            if (reading == null) {
                return deadLetter(mqttTopic, vehicleId, payload, describe(fields.errors()), null);
            }
            return new Written(intake.accept(Topics.VEHICLE_TELEMETRY, List.of(reading)).get(0));
        } catch (ConflictException e) {
            return deadLetter(mqttTopic, vehicleId, payload, describe(e.errors()), e);
        } catch (PublishException e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug rather than a bad message; redelivering it would only fail again and hold up every message after it.
            return deadLetter(mqttTopic, vehicleId, payload, "could not be processed: " + e, e);
        }
    }

    /** The vehicle id of {@code fleet/{vehicleId}/telemetry}, or null when the topic is not of that form. */
    static String vehicleIdOf(String mqttTopic) {
        String[] levels = mqttTopic.split("/", -1);
        return levels.length == 3 && levels[0].equals("fleet") && levels[2].equals("telemetry") && !levels[1].isEmpty()
                ? levels[1] : null;
    }

    private Outcome deadLetter(String mqttTopic, String vehicleId, byte[] payload, String reason, Exception cause) {
        Map<String, String> headers = DeadLetterHeaderBuilder.because(CardNumbers.mask(reason))
                .mqttTopic(CardNumbers.mask(mqttTopic)).processor(PROCESSOR).exception(cause).asMap();
        var m = log.deadLetter(DEAD_LETTERS, CardNumbers.mask(vehicleId), CardNumbers.mask(payload), headers);
        return new DeadLettered(CardNumbers.mask(reason), m.partition(), m.offset());
    }

    private static String describe(List<FieldError> errors) {
        return errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; "));
    }
}
