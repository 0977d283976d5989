package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.SubjectKind;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the ground truth of a run next to its output:
 * <ul>
 *   <li>{@code ground-truth.jsonl}: one planted anomaly per line — type, subject kind and id, event ids, window
 *       start and end, the rule parameters it was planted with and facts of the occurrence;</li>
 *   <li>{@code late-events.jsonl}: one late event per line — event id, topic, key, event time, delivery index,
 *       lateness, whether beyond the bound;</li>
 *   <li>{@code cards.jsonl}: card token → test PAN → customer, to join ingest's tokens back (HTTP target);</li>
 *   <li>{@code customers.jsonl}: the world's customers — id, name, account creation time, home hub;</li>
 *   <li>{@code summary.json}: the configuration and the counts.</li>
 * </ul>
 * Nothing here depends on the wall clock, so the files are byte-identical for the same configuration. The readers
 * ({@link #readAnomalies}, {@link #readConfig}) give back what the writers wrote, for scoring a detector afterwards.
 */
public final class GroundTruthFiles {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void writeAll(Generation g, Path dir) throws IOException {
        Files.createDirectories(dir);
        try (OutputStream out = Files.newOutputStream(dir.resolve("ground-truth.jsonl"))) {
            writeAnomalies(g, out);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("late-events.jsonl"))) {
            writeLateEvents(g, out);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("cards.jsonl"))) {
            writeCards(g, out);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("customers.jsonl"))) {
            writeCustomers(g, out);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("summary.json"))) {
            writeSummary(g, out);
        }
    }

    public static void writeAnomalies(Generation g, OutputStream out) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Anomaly a : g.anomalies()) {
            ObjectNode n = JSON.createObjectNode();
            n.put("type", a.type().name());
            n.putObject("subject").put("kind", a.subjectKind().name()).put("id", a.subjectId());
            a.eventIds().forEach(n.putArray("eventIds")::add);
            n.put("windowStart", a.windowStart().toString());
            n.put("windowEnd", a.windowEnd().toString());
            ObjectNode p = n.putObject("parameters");
            new TreeMap<>(a.parameters()).forEach(p::put);
            sb.append(JSON.writeValueAsString(n)).append('\n');
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static void writeLateEvents(Generation g, OutputStream out) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (LateEvent l : g.lateEvents()) {
            ObjectNode n = JSON.createObjectNode();
            n.put("eventId", l.eventId());
            n.put("topic", l.kind().topic().name());
            n.put("key", l.key());
            n.put("occurredAt", l.occurredAt().toString());
            n.put("deliveryIndex", l.deliveryIndex());
            n.put("latenessMillis", l.latenessMillis());
            n.put("beyondBound", l.beyondBound());
            sb.append(JSON.writeValueAsString(n)).append('\n');
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static void writeCards(Generation g, OutputStream out) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (CardInfo c : g.cards()) {
            ObjectNode n = JSON.createObjectNode();
            n.put("token", c.token());
            n.put("pan", c.pan());
            n.put("customerId", c.customerId());
            n.put("planted", c.planted());
            sb.append(JSON.writeValueAsString(n)).append('\n');
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static void writeCustomers(Generation g, OutputStream out) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (CustomerInfo c : g.customers()) {
            ObjectNode n = JSON.createObjectNode();
            n.put("customerId", c.customerId());
            n.put("fullName", c.fullName());
            n.put("registeredAt", c.registeredAt().toString());
            n.put("signedUpDuringRun", c.signedUpDuringRun());
            n.put("homeHub", c.homeHub());
            sb.append(JSON.writeValueAsString(n)).append('\n');
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static void writeSummary(Generation g, OutputStream out) throws IOException {
        out.write(JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(summary(g)));
        out.write('\n');
    }

    public static ObjectNode summary(Generation g) {
        GeneratorConfig c = g.config();
        ObjectNode n = JSON.createObjectNode();
        ObjectNode config = n.putObject("config");
        config.put("seed", c.seed());
        config.put("events", c.events());
        config.put("start", c.start().toString());
        config.put("lateRatio", c.lateRatio());
        config.put("latenessBound", c.latenessBound().toString());
        config.put("beyondBoundShare", c.beyondBoundShare());
        config.put("meanGap", c.meanGap().toString());
        config.put("customers", c.customers());
        config.put("vehicles", c.vehicles());
        ObjectNode rates = config.putObject("anomaliesPer1000Events");
        for (AlertType t : planted()) {
            rates.put(t.name(), c.rates().of(t));
        }
        ObjectNode events = n.putObject("events");
        Map<EventKind, Integer> byKind = new EnumMap<>(EventKind.class);
        g.events().forEach(e -> byKind.merge(e.kind(), 1, Integer::sum));
        events.put("total", g.events().size());
        byKind.forEach((k, v) -> events.put(k.topic().name(), v));
        if (!g.events().isEmpty()) {
            events.put("firstOccurredAt", g.events().stream().map(GeneratedEvent::occurredAt).min(java.util.Comparator.naturalOrder()).orElseThrow().toString());
            events.put("lastOccurredAt", g.events().stream().map(GeneratedEvent::occurredAt).max(java.util.Comparator.naturalOrder()).orElseThrow().toString());
        }
        ObjectNode anomalies = n.putObject("anomalies");
        anomalies.put("total", g.anomalies().size());
        Generator.countByType(g.anomalies()).forEach((k, v) -> anomalies.put(k.name(), v));
        ObjectNode late = n.putObject("late");
        late.put("total", g.lateEvents().size());
        late.put("ratio", g.events().isEmpty() ? 0 : (double) g.lateEvents().size() / g.events().size());
        late.put("beyondBound", g.lateEvents().stream().filter(LateEvent::beyondBound).count());
        late.put("maxLatenessMillis", g.lateEvents().stream().mapToLong(LateEvent::latenessMillis).max().orElse(0));
        ObjectNode customers = n.putObject("customers");
        customers.put("total", g.customers().size());
        customers.put("signedUpDuringRun", g.customers().stream().filter(CustomerInfo::signedUpDuringRun).count());
        ObjectNode cards = n.putObject("cards");
        cards.put("total", g.cards().size());
        cards.put("planted", g.cards().stream().filter(CardInfo::planted).count());
        return n;
    }

    /** The planted anomalies of {@code ground-truth.jsonl} in {@code dir}, as {@link #writeAnomalies} wrote them. */
    public static java.util.List<Anomaly> readAnomalies(Path dir) throws IOException {
        java.util.List<Anomaly> anomalies = new java.util.ArrayList<>();
        int line = 0;
        for (String text : Files.readAllLines(dir.resolve("ground-truth.jsonl"), StandardCharsets.UTF_8)) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(text);
                java.util.List<String> ids = new java.util.ArrayList<>();
                n.path("eventIds").forEach(id -> ids.add(id.asText()));
                Map<String, String> parameters = new TreeMap<>();
                n.path("parameters").fields().forEachRemaining(e -> parameters.put(e.getKey(), e.getValue().asText()));
                anomalies.add(new Anomaly(AlertType.valueOf(n.path("type").asText()),
                        SubjectKind.valueOf(n.path("subject").path("kind").asText()), n.path("subject").path("id").asText(),
                        ids, Instant.parse(n.path("windowStart").asText()), Instant.parse(n.path("windowEnd").asText()),
                        parameters));
            } catch (RuntimeException | IOException e) {
                throw new IOException(dir.resolve("ground-truth.jsonl") + " line " + line + " is not a planted anomaly: "
                        + e.getMessage(), e);
            }
        }
        return anomalies;
    }

    /**
     * The configuration a run was generated with, from {@code summary.json} in {@code dir} (the patterns' rules are
     * {@link PatternRules#DEFAULT}, the only ones the CLI plants): generating it again gives the same events.
     */
    public static GeneratorConfig readConfig(Path dir) throws IOException {
        Path file = dir.resolve("summary.json");
        JsonNode c = JSON.readTree(file.toFile()).path("config");
        try {
            JsonNode r = c.path("anomaliesPer1000Events");
            AnomalyRates rates = new AnomalyRates(r.path(AlertType.CARD_TESTING.name()).asDouble(),
                    r.path(AlertType.IMPOSSIBLE_TRAVEL.name()).asDouble(), r.path(AlertType.ACCOUNT_TAKEOVER.name()).asDouble(),
                    r.path(AlertType.PARCEL_SLA_BREACH.name()).asDouble(), r.path(AlertType.ENGINE_OVERHEATING.name()).asDouble());
            return new GeneratorConfig(required(c, "seed").asLong(), required(c, "events").asInt(),
                    Instant.parse(required(c, "start").asText()), required(c, "lateRatio").asDouble(),
                    java.time.Duration.parse(required(c, "latenessBound").asText()), required(c, "beyondBoundShare").asDouble(),
                    rates, PatternRules.DEFAULT, java.time.Duration.parse(required(c, "meanGap").asText()),
                    required(c, "customers").asInt(), required(c, "vehicles").asInt());
        } catch (RuntimeException e) {
            throw new IOException(file + " does not hold a generator configuration: " + e.getMessage(), e);
        }
    }

    private static JsonNode required(JsonNode config, String field) {
        JsonNode n = config.get(field);
        if (n == null || n.isNull()) {
            throw new IllegalArgumentException("config." + field + " is missing");
        }
        return n;
    }

    static java.util.List<AlertType> planted() {
        return java.util.List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL, AlertType.ACCOUNT_TAKEOVER,
                AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);
    }

    private GroundTruthFiles() {
    }
}
