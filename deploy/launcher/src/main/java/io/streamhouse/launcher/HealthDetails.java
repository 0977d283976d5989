package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the health view shows beyond the checks, gathered in one pass within {@link #BUDGET}: every processor's lag
 * ({@link ProcessorLag}), the serving projections' freshness ({@link ServingFreshness}), the lake's age per table
 * ({@link LakeAge}) and the last maintenance pass ({@link MaintenanceRecord}). Each part that gets no answer in time
 * says so in its own {@code unknown} field; the others stand. The result is {@code status.json}'s details: one JSON
 * value per key ({@link #json}).
 */
final class HealthDetails implements AutoCloseable {
    /** The pass's whole budget: within the watch's 5 s interval. */
    static final Duration BUDGET = Duration.ofMillis(4500);
    /** Of which the lag's reads take at most this much; the lake's two reads (catalog, log ends) have the rest. */
    static final Duration LAG_BUDGET = Duration.ofMillis(3000);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What there is to look at, read at each pass (instances and the query service come and go).
     *
     * @param processors  the consumer groups of the parts that run (the serving app's id changes with {@code replay promote})
     * @param apis        the api instances' URLs
     * @param sql         the query service's URL, empty when it does not run
     * @param lakeCatalog the lake's catalog properties, empty when the lake does not run
     */
    record Sources(Supplier<List<ProcessorLag.Processor>> processors, Supplier<List<URI>> apis, Supplier<Optional<URI>> sql,
                   Optional<Map<String, String>> lakeCatalog) {
    }

    private final Sources sources;
    private final Supplier<Admin> admin;
    private final Supplier<KafkaConsumer<byte[], byte[]>> consumerFactory;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final Optional<LakeAge> lake;
    private KafkaConsumer<byte[], byte[]> consumer;

    HealthDetails(Sources sources, Supplier<Admin> admin, Supplier<KafkaConsumer<byte[], byte[]>> consumerFactory) {
        this.sources = sources;
        this.admin = admin;
        this.consumerFactory = consumerFactory;
        this.lake = sources.lakeCatalog().map(LakeAge::new);
    }

    /** One pass: the details as {@code status.json} carries them. */
    Map<String, String> poll(Instant now) throws InterruptedException {
        Instant deadline = now.plus(BUDGET);
        // The HTTP answers first: they are cheap and bounded by their own timeouts, whatever the broker does.
        List<ObjectNode> instances = sources.apis().get().stream()
                .map(u -> askQuietly(() -> ServingFreshness.ask(http, u, Duration.ofSeconds(1)))).toList();
        ObjectNode maintenance = sources.sql().get().map(this::maintenance)
                .orElseGet(() -> MaintenanceRecord.unknown("the query service does not run"));
        List<ProcessorLag.Processor> processors = sources.processors().get();
        List<ProcessorLag.Entry> lag;
        List<LakeAge.Table> tables;
        try {
            Admin a = admin.get();
            if (consumer == null) {
                consumer = consumerFactory.get();
            }
            lag = ProcessorLag.fetch(a, consumer, processors, now, now.plus(LAG_BUDGET));
            tables = lake.isPresent() ? lake.get().poll(a, deadline) : List.of();
        } catch (RuntimeException e) {
            String why = "the broker could not be asked: " + e.getMessage();
            lag = processors.stream().map(p -> ProcessorLag.Entry.unknown(p, why)).toList();
            tables = List.of();
        }
        Optional<ProcessorLag.Entry> serving = lag.stream().filter(e -> e.processor().equals(ProcessorLag.SERVING_PROCESSOR)).findFirst();
        return json(lag, freshness(instances, serving), tables, maintenance);
    }

    private ObjectNode askQuietly(Interruptible<ObjectNode> ask) {
        try {
            return ask.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JsonNodeFactory.instance.objectNode().putNull("ready").put("unknown", "interrupted");
        }
    }

    private interface Interruptible<T> {
        T get() throws InterruptedException;
    }

    private ObjectNode maintenance(URI sql) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(sql.resolve("/v1/maintenance")).timeout(Duration.ofSeconds(1))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return MaintenanceRecord.of(r.statusCode(), r.body());
        } catch (IOException e) {
            return MaintenanceRecord.unknown("the query service did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return MaintenanceRecord.unknown("interrupted");
        }
    }

    /**
     * {@code {"ready", "instances": [...], "group", "records", "seconds", "unknown"?}}: ready when every instance says
     * so, null when one could not be asked or none runs; the serving group's lag beside it.
     */
    static ObjectNode freshness(List<ObjectNode> instances, Optional<ProcessorLag.Entry> servingLag) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        boolean unknown = instances.isEmpty() || instances.stream().anyMatch(i -> i.path("ready").isNull());
        if (unknown) {
            o.putNull("ready");
        } else {
            o.put("ready", instances.stream().allMatch(i -> i.path("ready").asBoolean()));
        }
        ArrayNode list = o.putArray("instances");
        instances.forEach(list::add);
        if (servingLag.isPresent()) {
            ObjectNode lag = servingLag.get().json();
            o.put("group", servingLag.get().group()).set("records", lag.get("records"));
            o.set("seconds", lag.get("seconds"));
        } else {
            o.putNull("group").putNull("records").putNull("seconds");
        }
        if (instances.isEmpty()) {
            o.put("unknown", "no api instance runs");
        } else if (unknown) {
            o.put("unknown", "an api instance could not be asked");
        }
        return o;
    }

    /** The details' keys and values: {@code lag}, {@code freshness}, {@code lake}, {@code maintenance}. */
    static Map<String, String> json(List<ProcessorLag.Entry> lag, ObjectNode freshness, List<LakeAge.Table> lake, ObjectNode maintenance) {
        ArrayNode lagJson = JSON.createArrayNode();
        lag.forEach(e -> lagJson.add(e.json()));
        ArrayNode lakeJson = JSON.createArrayNode();
        lake.forEach(t -> lakeJson.add(t.json()));
        Map<String, String> out = new LinkedHashMap<>();
        out.put("lag", lagJson.toString());
        out.put("freshness", freshness.toString());
        out.put("lake", lakeJson.toString());
        out.put("maintenance", maintenance.toString());
        return out;
    }

    /**
     * Short lines for {@code ./streamhouse status}: one per processor's lag, one for freshness, one for the lake (the
     * maintenance line comes from the query service itself). Details it cannot read are left out.
     */
    static List<String> statusLines(Map<String, String> details) {
        List<String> lines = new java.util.ArrayList<>();
        try {
            if (details.containsKey("lag")) {
                for (var e : JSON.readTree(details.get("lag"))) {
                    String what = e.path("records").isNull() ? "unknown"
                            : e.path("records").asLong() + " records, " + (e.path("seconds").isNull() ? "seconds unknown"
                            : String.format(java.util.Locale.ROOT, "%.1f s behind", e.path("seconds").asDouble()));
                    lines.add("lag " + e.path("processor").asText() + ": " + what
                            + (e.has("unknown") ? " (" + e.path("unknown").asText() + ")" : ""));
                }
            }
            if (details.containsKey("freshness")) {
                var f = JSON.readTree(details.get("freshness"));
                String ready = f.path("ready").isNull() ? "unknown" : f.path("ready").asBoolean() ? "ready" : "not ready";
                List<String> states = new java.util.ArrayList<>();
                f.path("instances").forEach(i -> states.add(i.path("ready").isNull() ? i.path("unknown").asText("unknown")
                        : "projections " + i.path("projections").asText() + ", decisions " + i.path("decisions").asText()));
                lines.add("freshness: api " + ready + (states.isEmpty() ? "" : " (" + String.join("; ", states) + ")")
                        + ", serving " + (f.path("records").isNull() ? "lag unknown" : f.path("records").asLong() + " records"
                        + (f.path("seconds").isNull() ? "" : String.format(java.util.Locale.ROOT, ", %.1f s behind", f.path("seconds").asDouble()))));
            }
            if (details.containsKey("lake") && !JSON.readTree(details.get("lake")).isEmpty()) {
                var tables = JSON.readTree(details.get("lake"));
                int unknown = 0;
                double worst = 0;
                String worstTable = null;
                for (var t : tables) {
                    if (t.path("behindSeconds").isNull()) {
                        unknown++;
                    } else if (t.path("behindSeconds").asDouble() > worst || worstTable == null) {
                        worst = t.path("behindSeconds").asDouble();
                        worstTable = t.path("table").asText();
                    }
                }
                lines.add("lake: " + tables.size() + " tables, " + (worstTable == null ? "age unknown"
                        : String.format(java.util.Locale.ROOT, "at most %.1f s behind the log (%s)", worst, worstTable))
                        + (unknown > 0 ? ", " + unknown + " unknown" : ""));
            }
        } catch (IOException e) {
            lines.add("health details: unreadable (" + e.getMessage() + ")");
        }
        return lines;
    }

    @Override
    public void close() {
        lake.ifPresent(LakeAge::close);
        if (consumer != null) {
            consumer.close(java.time.Duration.ofSeconds(1));
        }
    }
}
