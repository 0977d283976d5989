package io.streamhouse.platform.junit;

import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.lake.LakeAudit.Coordinate;
import io.streamhouse.domain.topic.LakeNames;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import io.openlineage.client.utils.DatasetIdentifier;
import io.openlineage.client.utils.filesystem.FilesystemDatasetUtils;
import io.streamhouse.lineage.testing.LineageSchema;
import io.streamhouse.platform.EmbeddedPlatform;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lake on the real broker: the Iceberg sink lands every landed topic in its table exactly once. Rows are counted
 * through Iceberg's own Java API (scans of the committed snapshots), never by listing files: a killed or retried
 * writer leaves orphan files that are not part of the table.
 */
@WithStreamhousePlatform
class LakeOnThePlatformIT {

    private static final Duration LANDING = Duration.ofSeconds(90);

    @Test
    void everyTopicLandsExactlyOnceAbortedTransactionsAndBadRecordsDoNot(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        Map<String, List<Coordinate>> aborted = new HashMap<>();
        try (KafkaProducer<String, byte[]> producer = transactionalProducer(platform, "lake-it-traffic")) {
            producer.initTransactions();
            for (int round = 0; round < 12; round++) {
                producer.beginTransaction();
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (ProducerRecord<String, byte[]> r : roundOfEach(platform, round)) {
                    sent.add(producer.send(r));
                }
                producer.flush();
                if (round % 4 == 3) {
                    for (Future<RecordMetadata> f : sent) {
                        RecordMetadata m = f.get();
                        aborted.computeIfAbsent(m.topic(), t -> new ArrayList<>()).add(new Coordinate(m.partition(), m.offset()));
                    }
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        // Bytes the converter cannot read: dead-lettered with the reason, the connector keeps running.
        RecordMetadata bad;
        try (KafkaProducer<String, byte[]> plain = plainProducer(platform)) {
            bad = plain.send(new ProducerRecord<>(Topics.MAINTENANCE_ALERTS.name(), "truck-7",
                    "not avro".getBytes(StandardCharsets.UTF_8))).get();
        }

        try (JdbcCatalog catalog = catalog(platform)) {
            await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                Map<String, Set<Coordinate>> deadLettered = deadLettered(platform);
                for (Topic<String, ?> topic : LakeNames.landed()) {
                    List<Coordinate> landed = landed(catalog, topic.name());
                    LakeAudit.TopicAudit audit = LakeAudit.compare(topic.name(), landed, readCommitted(platform, topic.name()),
                            deadLettered.getOrDefault(topic.name(), Set.of()));
                    assertThat(audit.equal()).as("Iceberg equals Kafka, no duplicate rows: %s", audit).isTrue();
                }
            });
            for (Topic<String, ?> topic : LakeNames.landed()) {
                List<Coordinate> landed = landed(catalog, topic.name());
                assertThat(landed).as(topic.name() + " received traffic").isNotEmpty();
                assertThat(landed).as(topic.name() + ": aborted records never land")
                        .doesNotContainAnyElementsOf(aborted.getOrDefault(topic.name(), List.of()));
            }
            assertThat(aborted.values().stream().mapToInt(List::size).sum()).isGreaterThan(20);

            // The bad record is on the dead-letter topic with the converter's reason.
            Map<String, String> reason = deadLetterHeaders(platform, Topics.MAINTENANCE_ALERTS.name(), bad.partition(), bad.offset());
            assertThat(reason.get("__connect.errors.exception.message")).contains("wire format");
            assertThat(platform.lake().status(LakeConnector.NAME)).doesNotContain("FAILED");

            // Types as created ahead: exact decimals, timestamps with zone, the union as a struct of branches.
            Table orders = catalog.loadTable(table(Topics.ORDERS.name()));
            assertThat(orders.schema().findType("change.OrderPlaced.total.amount")).isEqualTo(Types.DecimalType.of(19, 4));
            try (CloseableIterable<Record> rows = IcebergGenerics.read(orders).build()) {
                Record row = rows.iterator().next();
                Record placed = (Record) ((Record) row.getField("change")).getField("OrderPlaced");
                assertThat(((Record) placed.getField("total")).getField("amount")).isEqualTo(new BigDecimal("39.9800"));
                assertThat(((Record) row.getField("envelope")).getField("occurredAt"))
                        .isEqualTo(OffsetDateTime.parse("2026-03-02T09:00:00Z"));
                assertThat(row.getField("_topic")).isEqualTo(Topics.ORDERS.name());
                assertThat(row.getField("_kafka_timestamp")).isInstanceOf(OffsetDateTime.class);
            }
            assertThat(orders.spec().fields().get(0).transform().toString()).isEqualTo("day");
        }
    }

    /**
     * The platform registers the sink, so it emits the sink's OpenLineage run: its outputs must be the tables the sink
     * really writes, named by the location Iceberg's catalog gives each (docs/lineage.md).
     */
    @Test
    void theSinksLineageRunNamesTheTablesByTheirRealLocationAndReadsEveryLandedTopic(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        List<OpenLineage.RunEvent> starts = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(platform, Topics.LINEAGE_EVENTS.name())) {
            String json = new String(r.value(), StandardCharsets.UTF_8);
            OpenLineage.RunEvent event = OpenLineageClientUtils.runEventFromJson(json);
            if (event.getJob().getName().equals(LakeConnector.NAME)) {
                assertThat(LineageSchema.violations(json)).as(json).isEmpty();
                if (event.getEventType() == OpenLineage.RunEvent.EventType.START) {
                    starts.add(event);
                }
            }
        }
        assertThat(starts).isNotEmpty();
        try (JdbcCatalog catalog = catalog(platform)) {
            for (OpenLineage.RunEvent start : starts) {
                assertThat(start.getInputs()).extracting(OpenLineage.InputDataset::getName)
                        .containsExactlyInAnyOrderElementsOf(LakeNames.landed().stream().map(Topic::name).toList());
                List<String> written = new ArrayList<>();
                for (Topic<String, ?> topic : LakeNames.landed()) {
                    Table table = catalog.loadTable(table(topic.name()));
                    DatasetIdentifier physical = FilesystemDatasetUtils.fromLocation(URI.create(table.location()));
                    written.add(physical.getNamespace() + " " + physical.getName() + " -> "
                            + LakeNames.qualifiedTableName(topic.name()));
                }
                written.add("kafka://" + platform.bootstrapServers() + " " + LakeConnector.DEAD_LETTER_TOPIC + " -> ");
                assertThat(start.getOutputs()).extracting(d -> d.getNamespace() + " " + d.getName() + " -> "
                                + (d.getFacets() == null || d.getFacets().getSymlinks() == null ? ""
                                : d.getFacets().getSymlinks().getIdentifiers().get(0).getName()))
                        .containsExactlyInAnyOrderElementsOf(written);
            }
        }
    }

    @Test
    void aNewOptionalFieldBecomesANewColumnWithoutARestart(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        RuleDefinition v1Value = RuleDefinition.newBuilder(io.streamhouse.domain.decision.DefaultRules.definitions().get(0))
                .setRuleId("lake-it-evolved-rule").build();
        Schema v1 = RuleDefinition.getClassSchema();
        Schema v2 = withOptionalString(v1, "owner");
        GenericRecord value = new GenericDatumReader<GenericRecord>(v1, v2).read(null, DecoderFactory.get()
                .binaryDecoder(avroBinary(v1Value), null));
        value.put("owner", "team-fraud");
        try (CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
             KafkaProducer<String, byte[]> producer = plainProducer(platform)) {
            int id = registry.register(Topics.RULES.name() + "-value", v2);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(WireFormat.header(id));
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(v2).write(value, encoder);
            encoder.flush();
            producer.send(new ProducerRecord<>(Topics.RULES.name(), v1Value.getRuleId(), out.toByteArray())).get();
        }
        try (JdbcCatalog catalog = catalog(platform)) {
            await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                Table rules = catalog.loadTable(table(Topics.RULES.name()));
                assertThat(rules.schema().findField("owner")).isNotNull();
                assertThat(rules.schema().findField("owner").isOptional()).isTrue();
                try (CloseableIterable<Record> rows = IcebergGenerics.read(rules).build()) {
                    List<Object> owners = new ArrayList<>();
                    rows.forEach(r -> owners.add(r.getField("owner")));
                    assertThat(owners).contains("team-fraud");
                }
            });
        }
        assertThat(platform.lake().status(LakeConnector.NAME)).doesNotContain("FAILED");
    }

    @Test
    void aRecordWhoseTopicHasNoTableIsDeadLetteredNotSkipped(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        String stray = "lake.it.stray";
        String control = "streamhouse.lake.control.stray-it";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(stray, 1, (short) 1), new NewTopic(control, 1, (short) 1))).all().get();
        }
        // An operator adds a topic to the sink's topics but gives it no table: the sink alone would skip its records.
        Map<String, String> config = new HashMap<>(LakeConnector.config(LakeConnector.settings(platform.lakeCatalog(),
                platform.bootstrapServers(), platform.schemaRegistryUrl().toString(), "stray-it")));
        config.put("topics", stray);
        config.put("iceberg.control.topic", control);
        var worker = platform.lake();
        worker.putConnector("lake-stray", config);
        try {
            worker.awaitRunning("lake-stray", Duration.ofSeconds(60));
            RecordMetadata sent;
            try (KafkaProducer<String, byte[]> producer = plainProducer(platform);
                 CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString())) {
                AvroSerializer<RuleDefinition> serializer = new AvroSerializer<>(registry, RuleDefinition.class, false);
                RuleDefinition rule = io.streamhouse.domain.decision.DefaultRules.definitions().get(0);
                sent = producer.send(new ProducerRecord<>(stray, rule.getRuleId(), serializer.serialize(stray, rule))).get();
            }
            await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(deadLetterHeaders(platform, stray, sent.partition(), sent.offset()).get("__connect.errors.exception.message"))
                            .contains("no lake table for topic 'lake.it.stray'"));
        } finally {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(worker.restUrl() + "/connectors/lake-stray"))
                    .DELETE().build(), HttpResponse.BodyHandlers.discarding());
        }
    }

    @Test
    void anOldWarehouseWithAnotherClustersControlOffsetsStillLands(EmbeddedPlatform platform) throws Exception {
        platform.lake();
        TableIdentifier reviews = table(Topics.REVIEW_OUTCOMES.name());
        try (JdbcCatalog catalog = catalog(platform)) {
            // What a warehouse kept from an earlier broker looks like: that cluster's control topic far ahead.
            catalog.loadTable(reviews).newAppend()
                    .set("kafka.connect.offsets." + LakeConnector.controlTopicOf("an-earlier-cluster") + "."
                            + LakeConnector.connectGroup(), "{\"0\":1000000}")
                    .commit();
            RecordMetadata sent;
            try (KafkaProducer<String, byte[]> producer = plainProducer(platform);
                 CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString())) {
                var serializer = new AvroSerializer<>(registry, io.streamhouse.domain.event.ReviewOutcomeRecorded.class, false);
                var review = SampleEvents.reviewOutcome("rev-old-warehouse", "tx-ow", "card-ow",
                        io.streamhouse.domain.event.ReviewOutcome.LEGITIMATE, Times.T0);
                sent = producer.send(new ProducerRecord<>(Topics.REVIEW_OUTCOMES.name(), "card-ow",
                        serializer.serialize(Topics.REVIEW_OUTCOMES.name(), review))).get();
            }
            await().atMost(LANDING).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(landed(catalog, Topics.REVIEW_OUTCOMES.name()))
                            .contains(new Coordinate(sent.partition(), sent.offset())));
        }
    }

    // ------------------------------------------------------------------ traffic

    /** One record of every landed topic, keys varied by round so they spread over partitions. */
    private static List<ProducerRecord<String, byte[]>> roundOfEach(EmbeddedPlatform platform, int round) {
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>();
        try (CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString())) {
            for (SpecificRecord sample : SampleEvents.oneOfEach()) {
                // Rule ids of our own: other tests on this shared broker look for the built-in rules on rules.definitions.
                SpecificRecord event = sample instanceof RuleDefinition rule
                        ? RuleDefinition.newBuilder(rule).setRuleId("lake-it-rule-" + round).build() : sample;
                for (Topic<String, ?> topic : LakeNames.landed()) {
                    if (topic.valueType() == event.getClass()) {
                        out.add(record(registry, topic, "k-" + round + "-" + topic.name(), event));
                    }
                }
            }
            CustomerProfile profile = CustomerProfile.newBuilder().setCustomerId("c-" + round).setRegisteredAt(Times.T0)
                    .setAddressChangedAt(null).setEmailChangedAt(null).setDeleted(false).setLastEventId("evt-" + round)
                    .setLastOccurredAt(Times.T0).build();
            out.add(record(registry, Topics.CUSTOMER_PROFILES, "c-" + round, profile));
        }
        assertThat(out.stream().map(ProducerRecord::topic).distinct()).hasSize(LakeNames.landed().size());
        return out;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ProducerRecord<String, byte[]> record(CachingSchemaRegistryClient registry, Topic<String, ?> topic,
                                                         String key, SpecificRecord value) {
        AvroSerializer serializer = new AvroSerializer(registry, value.getClass(), false);
        return new ProducerRecord<>(topic.name(), key, serializer.serialize(topic.name(), value));
    }

    private static byte[] avroBinary(RuleDefinition value) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new org.apache.avro.specific.SpecificDatumWriter<>(RuleDefinition.class).write(value, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static Schema withOptionalString(Schema v1, String name) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : v1.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(new Schema.Field(name, Schema.createUnion(Schema.create(Schema.Type.NULL), Schema.create(Schema.Type.STRING)),
                "v2: the team that owns the rule.", Schema.Field.NULL_DEFAULT_VALUE));
        Schema v2 = Schema.createRecord(v1.getName(), v1.getDoc(), v1.getNamespace(), false, fields);
        return v2;
    }

    private static KafkaProducer<String, byte[]> transactionalProducer(EmbeddedPlatform platform, String id) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, id + "-" + ProcessHandle.current().pid(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                new StringSerializer(), new ByteArraySerializer());
    }

    private static KafkaProducer<String, byte[]> plainProducer(EmbeddedPlatform platform) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }

    // ------------------------------------------------------------------ reading

    private static JdbcCatalog catalog(EmbeddedPlatform platform) {
        return (JdbcCatalog) CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, platform.lakeCatalog(),
                new org.apache.hadoop.conf.Configuration());
    }

    private static TableIdentifier table(String topic) {
        return TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(topic));
    }

    /** Every row's (partition, offset) in the table's current snapshot, through an Iceberg scan. */
    private static List<Coordinate> landed(Catalog catalog, String topic) {
        return LakeAudit.landed(catalog, topic);
    }

    /** What a read_committed consumer reads of {@code topic}, up to its end now (non-null values only). */
    private static Set<Coordinate> readCommitted(EmbeddedPlatform platform, String topic) {
        return LakeAudit.readCommitted(platform.bootstrapServers(), topic, Duration.ofSeconds(30));
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(EmbeddedPlatform platform, String topic) {
        return LakeAudit.readAll(platform.bootstrapServers(), topic, Duration.ofSeconds(30));
    }

    /** Source coordinates of every dead-lettered record, by source topic. */
    private static Map<String, Set<Coordinate>> deadLettered(EmbeddedPlatform platform) {
        return LakeAudit.deadLettered(platform.bootstrapServers(), LakeConnector.DEAD_LETTER_TOPIC, Duration.ofSeconds(30));
    }

    /** The Connect error headers of the dead-lettered record that was at {@code topic}/{@code partition}/{@code offset}. */
    private static Map<String, String> deadLetterHeaders(EmbeddedPlatform platform, String topic, int partition, long offset) {
        for (ConsumerRecord<byte[], byte[]> r : readAll(platform, LakeConnector.DEAD_LETTER_TOPIC)) {
            Map<String, String> h = LakeAudit.headers(r);
            if (topic.equals(h.get("__connect.errors.topic")) && Integer.toString(partition).equals(h.get("__connect.errors.partition"))
                    && Long.toString(offset).equals(h.get("__connect.errors.offset"))) {
                return h;
            }
        }
        throw new AssertionError("no dead-lettered record from " + topic + "/" + partition + "@" + offset);
    }
}
