package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.domain.topic.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * How far each landed table is behind its topic: the newest record's timestamp on the topic (the greatest over its
 * partitions, Kafka's {@code max timestamp} offset spec) less the commit time of the table's current Iceberg snapshot,
 * in seconds; 0 when the snapshot is newer than the newest record.
 *
 * <p>Read without an Iceberg jar: the JDBC catalog's {@code iceberg_tables} rows name each table's current metadata
 * file, and that JSON file (on the local warehouse) names the current snapshot and its {@code timestamp-ms}. A metadata
 * file never changes once written, so its snapshot time is kept by location and a file is read once.
 */
final class LakeAge implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One table: the instants empty when unknown or absent; {@code unknown} says why {@code behindSeconds} is empty. */
    record Table(String table, String topic, Optional<Instant> snapshotAt, Optional<Instant> logEndAt,
                 Optional<Double> behindSeconds, Optional<String> unknown) {

        ObjectNode json() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("table", table).put("topic", topic);
            if (snapshotAt.isPresent()) {
                o.put("snapshotAt", snapshotAt.get().toString());
            } else {
                o.putNull("snapshotAt");
            }
            if (logEndAt.isPresent()) {
                o.put("logEndAt", logEndAt.get().toString());
            } else {
                o.putNull("logEndAt");
            }
            if (behindSeconds.isPresent()) {
                o.put("behindSeconds", behindSeconds.get());
            } else {
                o.putNull("behindSeconds");
            }
            unknown.ifPresent(u -> o.put("unknown", u));
            return o;
        }
    }

    /**
     * The age of one table. An empty topic leaves nothing to land (0); a topic with records and a table without a
     * snapshot is unknown (nothing landed yet, by how much cannot be said from two instants).
     */
    static Table of(String table, String topic, Optional<Instant> snapshotAt, Optional<Instant> logEndAt) {
        if (logEndAt.isEmpty()) {
            return new Table(table, topic, snapshotAt, logEndAt, Optional.of(0.0), Optional.empty());
        }
        if (snapshotAt.isEmpty()) {
            return new Table(table, topic, snapshotAt, logEndAt, Optional.empty(), Optional.of("no snapshot yet, the topic has records"));
        }
        double behind = Math.max(0, logEndAt.get().toEpochMilli() - snapshotAt.get().toEpochMilli()) / 1000.0;
        return new Table(table, topic, snapshotAt, logEndAt, Optional.of(behind), Optional.empty());
    }

    /** The commit time of the current snapshot in a table metadata file's JSON; empty for a table with no snapshot. */
    static Optional<Instant> currentSnapshotAt(JsonNode metadata) {
        long current = metadata.path("current-snapshot-id").asLong(-1);
        if (current < 0) {
            return Optional.empty();
        }
        for (JsonNode s : metadata.path("snapshots")) {
            if (s.path("snapshot-id").asLong() == current) {
                return Optional.of(Instant.ofEpochMilli(s.path("timestamp-ms").asLong()));
            }
        }
        return Optional.empty();
    }

    private final Map<String, String> catalog;
    private final Map<String, Optional<Instant>> byLocation = new ConcurrentHashMap<>();
    private final Map<String, List<TopicPartition>> partitions = new ConcurrentHashMap<>();
    private Connection connection;

    /** @param catalog the lake's Iceberg catalog properties ({@code uri}, {@code jdbc.user}, {@code jdbc.password}) */
    LakeAge(Map<String, String> catalog) {
        this.catalog = Map.copyOf(catalog);
    }

    /** Every landed table's age now; one unknown entry for all when the catalog or the broker does not answer in time. */
    List<Table> poll(Admin admin, Instant deadline) throws InterruptedException {
        List<String> topics = LakeNames.landed().stream().map(Topic::name).toList();
        Map<String, Optional<Instant>> snapshots;
        Map<String, Optional<Instant>> ends;
        try {
            snapshots = snapshots(deadline);
        } catch (SQLException | IOException | RuntimeException e) {
            closeConnection();
            return topics.stream().map(t -> unknown(t, "the catalog did not answer: " + e.getMessage())).toList();
        }
        try {
            ends = logEnds(admin, topics, deadline);
        } catch (ExecutionException | TimeoutException e) {
            partitions.clear();
            String why = e instanceof TimeoutException ? "the log's end was not read in time"
                    : "the log's end could not be read: " + e.getCause().getMessage();
            return topics.stream().map(t -> unknown(t, why)).toList();
        }
        List<Table> tables = new ArrayList<>();
        for (String topic : topics) {
            String table = LakeNames.tableName(topic);
            tables.add(of(table, topic, snapshots.getOrDefault(table, Optional.empty()), ends.getOrDefault(topic, Optional.empty())));
        }
        return tables;
    }

    private static Table unknown(String topic, String why) {
        return new Table(LakeNames.tableName(topic), topic, Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(why));
    }

    /** Table name → its current snapshot's commit time, from the catalog's rows and their metadata files. */
    private Map<String, Optional<Instant>> snapshots(Instant deadline) throws SQLException, IOException {
        if (connection == null || connection.isClosed()) {
            // PostgreSQL's own timeouts, not DriverManager's login timeout, which is global to the launcher's JVM.
            java.util.Properties p = new java.util.Properties();
            p.setProperty("user", catalog.getOrDefault("jdbc.user", ""));
            p.setProperty("password", catalog.getOrDefault("jdbc.password", ""));
            p.setProperty("loginTimeout", "2");
            p.setProperty("connectTimeout", "2");
            p.setProperty("socketTimeout", "3");
            connection = DriverManager.getConnection(catalog.get("uri"), p);
        }
        Map<String, Optional<Instant>> out = new HashMap<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT table_name, metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?")) {
            s.setQueryTimeout((int) Math.max(1, Duration.between(Instant.now(), deadline).toSeconds()));
            s.setString(1, LakeNames.CATALOG);
            s.setString(2, LakeNames.NAMESPACE);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    String location = rows.getString(2);
                    Optional<Instant> at = byLocation.get(location);
                    if (at == null) {
                        at = currentSnapshotAt(readMetadata(location));
                        byLocation.put(location, at);
                    }
                    out.put(rows.getString(1), at);
                }
            }
        }
        return out;
    }

    private static JsonNode readMetadata(String location) throws IOException {
        Path file = Path.of(URI.create(location.startsWith("/") ? "file:" + location : location));
        try (InputStream in = Files.newInputStream(file)) {
            return JSON.readTree(location.endsWith(".gz.metadata.json") ? new GZIPInputStream(in) : in);
        }
    }

    /** Topic → the greatest record timestamp over its partitions (empty: no record). */
    private Map<String, Optional<Instant>> logEnds(Admin admin, List<String> topics, Instant deadline)
            throws ExecutionException, TimeoutException, InterruptedException {
        if (partitions.isEmpty()) {
            Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                    .get(remaining(deadline), TimeUnit.MILLISECONDS);
            described.forEach((name, d) -> partitions.put(name, d.partitions().stream()
                    .map(p -> new TopicPartition(name, p.partition())).toList()));
        }
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        partitions.values().forEach(ps -> ps.forEach(tp -> specs.put(tp, OffsetSpec.maxTimestamp())));
        Map<String, Optional<Instant>> ends = new HashMap<>();
        admin.listOffsets(specs).all().get(remaining(deadline), TimeUnit.MILLISECONDS).forEach((tp, info) -> {
            Optional<Instant> at = info.timestamp() < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(info.timestamp()));
            ends.merge(tp.topic(), at, (a, b) -> a.isEmpty() ? b : b.isEmpty() ? a : a.get().isAfter(b.get()) ? a : b);
        });
        return ends;
    }

    private static long remaining(Instant deadline) {
        return Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Already broken: a new one is opened on the next poll.
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        closeConnection();
    }
}
