package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Telemetry and parcel-scan bodies use only the fields ingest's parsers accept (read from their source, as
 * {@link TransactionJsonTest} does, since load-tests must not depend on ingest) and carry every value of the event.
 */
class EdgeJsonTest {
    static final Path INGEST = Path.of("..", "ingest", "src", "main", "java", "io", "streamhouse", "ingest");

    static Set<String> parserFields(String file) throws IOException {
        Matcher m = Pattern.compile("Set<String> FIELDS = Set\\.of\\(([^)]*)\\)", Pattern.DOTALL)
                .matcher(Files.readString(INGEST.resolve(file)));
        assertThat(m.find()).as("field list in " + file).isTrue();
        Set<String> names = new LinkedHashSet<>();
        Matcher q = Pattern.compile("\"([^\"]+)\"").matcher(m.group(1));
        while (q.find()) {
            names.add(q.group(1));
        }
        return names;
    }

    static Set<String> names(JsonNode node) {
        Set<String> out = new LinkedHashSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    @Test
    void telemetryBodiesUseTheParsersFieldsAndKeepEveryValue() throws IOException {
        Set<String> accepted = parserFields("telemetry/TelemetryParser.java");
        List<VehicleTelemetry> readings = Generator.generate(GeneratorConfig.defaults(5, 5_000)).events().stream()
                .filter(e -> e.kind() == EventKind.VEHICLE_TELEMETRY).map(e -> (VehicleTelemetry) e.value()).toList();
        assertThat(readings).hasSizeGreaterThan(100);
        for (VehicleTelemetry t : readings) {
            JsonNode body = EdgeJson.telemetry(t);
            assertThat(accepted).containsAll(names(body));
            assertThat(body.get("eventId").asText()).isEqualTo(t.getEnvelope().getEventId());
            assertThat(Instant.parse(body.get("occurredAt").asText())).isEqualTo(t.getEnvelope().getOccurredAt());
            assertThat(body.get("coolantTempC").asDouble()).isEqualTo(t.getCoolantTempC());
            assertThat(body.get("position").get("lat").asDouble()).isEqualTo(t.getPosition().getLat());
            assertThat(body.path("faultCodes").size()).isEqualTo(t.getFaultCodes().size());
        }
    }

    @Test
    void parcelScanBodiesUseTheParsersFieldsAndKeepEveryValue() throws IOException {
        Set<String> accepted = parserFields("parcels/ParcelScanParser.java");
        List<ParcelScanned> scans = Generator.generate(GeneratorConfig.defaults(5, 5_000)).events().stream()
                .filter(e -> e.kind() == EventKind.PARCEL_SCAN).map(e -> (ParcelScanned) e.value()).toList();
        assertThat(scans).hasSizeGreaterThan(100);
        for (ParcelScanned s : scans) {
            JsonNode body = EdgeJson.parcelScan(s);
            assertThat(accepted).containsAll(names(body));
            assertThat(body.get("eventId").asText()).isEqualTo(s.getEnvelope().getEventId());
            assertThat(body.get("status").asText()).isEqualTo(s.getStatus().name());
            assertThat(body.path("hubId").isMissingNode()).isEqualTo(s.getHubId() == null);
            if (s.getPromisedBy() != null) {
                assertThat(Instant.parse(body.get("promisedBy").asText())).isEqualTo(s.getPromisedBy());
            }
        }
    }
}
