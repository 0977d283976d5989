package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.AlertType;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Nothing here depends on the wall clock, so the files are byte-identical for the same configuration.
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

    static java.util.List<AlertType> planted() {
        return java.util.List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL, AlertType.ACCOUNT_TAKEOVER,
                AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);
    }

    private GroundTruthFiles() {
    }
}
