package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import org.HdrHistogram.Histogram;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Landing freshness of the lake: telemetry events produced open-loop at a fixed rate into
 * {@code fleet.vehicles.telemetry} of a running platform ({@code ./streamhouse up}, lake on), and for each event
 * the time from its Kafka timestamp (set when it was produced) to the commit of the first Iceberg snapshot that
 * holds its row ({@code _kafka_timestamp} → snapshot commit time), read through Iceberg's own scans of each new
 * snapshot's appends. Events produced during the warm-up are not counted; the run waits up to {@code --drain} for
 * the last ones. Loopback and bounded: a fixed rate for a fixed time.
 */
@Command(name = "lake-freshness-benchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Event → visible in Iceberg, p50/p99, at a fixed rate against a running platform.")
public final class LakeFreshnessBenchmark implements Callable<Integer> {

    @Mixin
    LakeCatalogOptions lake;
    @Option(names = "--rate", defaultValue = "2000", description = "Events per second (default ${DEFAULT-VALUE}).")
    int rate;
    @Option(names = "--duration", defaultValue = "PT60S", description = "Measured time (default ${DEFAULT-VALUE}).")
    Duration duration;
    @Option(names = "--warm-up", defaultValue = "PT10S", description = "Time at the same rate before measuring (default ${DEFAULT-VALUE}).")
    Duration warmUp;
    @Option(names = "--drain", defaultValue = "PT30S", description = "How long to wait for the last events to land (default ${DEFAULT-VALUE}).")
    Duration drain;

    public static void main(String[] args) {
        System.exit(BenchmarkCommand.execute("lake-freshness-benchmark", new LakeFreshnessBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        String remote = lake.notLoopback();
        if (remote != null) {
            io.streamhouse.control.CliLog.terminalError().println("loopback only: " + remote);
            return 2;
        }
        Catalog catalog = lake.catalog();
        Table table = catalog.loadTable(TableIdentifier.of(LakeNames.NAMESPACE, LakeNames.tableName(Topics.VEHICLE_TELEMETRY.name())));
        table.refresh();
        Snapshot start = table.currentSnapshot();

        String run = UUID.randomUUID().toString().substring(0, 8);
        Histogram measured = new Histogram(3_600_000L, 3);
        AtomicLong landedMeasured = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        long measureFromMillis = System.currentTimeMillis() + warmUp.toMillis();
        long[] produced = new long[2]; // [0] all, [1] measured

        Thread producer = new Thread(() -> produce(run, measureFromMillis, produced, producing), "lake-bench-producer");
        producer.start();

        long lastSnapshot = start == null ? -1 : start.snapshotId();
        long deadline = Long.MAX_VALUE;
        List<Long> commitGaps = new ArrayList<>();
        long lastCommitMillis = -1;
        while (System.currentTimeMillis() < deadline) {
            if (!producer.isAlive() && deadline == Long.MAX_VALUE) {
                deadline = System.currentTimeMillis() + drain.toMillis();
            }
            table.refresh();
            Snapshot current = table.currentSnapshot();
            if (current != null && current.snapshotId() != lastSnapshot) {
                List<Snapshot> fresh = new ArrayList<>();
                for (Snapshot s = current; s != null && s.snapshotId() != lastSnapshot;
                     s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
                    fresh.add(0, s);
                }
                long from = lastSnapshot;
                for (Snapshot s : fresh) {
                    if (lastCommitMillis > 0) {
                        commitGaps.add(s.timestampMillis() - lastCommitMillis);
                    }
                    lastCommitMillis = s.timestampMillis();
                    var scan = IcebergGenerics.read(table).select("_kafka_timestamp", "vehicleId");
                    scan = from < 0 ? scan.useSnapshot(s.snapshotId()) : scan.appendsBetween(from, s.snapshotId());
                    try (CloseableIterable<Record> rows = scan.build()) {
                        for (Record r : rows) {
                            String vehicle = (String) r.getField("vehicleId");
                            if (!vehicle.startsWith("bench-" + run + "-m-")) {
                                continue;
                            }
                            long produceMillis = ((OffsetDateTime) r.getField("_kafka_timestamp")).toInstant().toEpochMilli();
                            measured.recordValue(Math.max(0, s.timestampMillis() - produceMillis));
                            landedMeasured.incrementAndGet();
                        }
                    }
                    from = s.snapshotId();
                }
                lastSnapshot = current.snapshotId();
            }
            if (!producer.isAlive() && landedMeasured.get() >= produced[1]) {
                break;
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        producer.join();
        long gapsP50 = commitGaps.isEmpty() ? -1 : commitGaps.stream().sorted().toList().get(commitGaps.size() / 2);
        System.out.printf("rate %d/s for %s (after %s warm-up): produced %d measured events, %d landed (%s)%n",
                rate, duration, warmUp, produced[1], landedMeasured.get(),
                landedMeasured.get() == produced[1] ? "all" : "MISSING " + (produced[1] - landedMeasured.get()));
        System.out.printf("produce → committed in Iceberg: p50 %d ms, p90 %d ms, p99 %d ms, p99.9 %d ms, max %d ms; "
                        + "snapshots %d, median gap between commits %d ms%n",
                measured.getValueAtPercentile(50), measured.getValueAtPercentile(90), measured.getValueAtPercentile(99),
                measured.getValueAtPercentile(99.9), measured.getMaxValue(), commitGaps.size() + 1, gapsP50);
        return landedMeasured.get() == produced[1] ? 0 : 1;
    }

    private void produce(String run, long measureFromMillis, long[] produced, AtomicBoolean producing) {
        try (CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(lake.registry);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                     .producer(lake.bootstrap, Map.of(
                     ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5)), new StringSerializer(), new ByteArraySerializer())) {
            AvroSerializer<VehicleTelemetry> serializer = new AvroSerializer<>(client, VehicleTelemetry.class, false);
            String topic = Topics.VEHICLE_TELEMETRY.name();
            Pacer pacer = new Pacer(System.nanoTime(), rate, duration.plus(warmUp));
            for (long i = 0; i < pacer.count(); i++) {
                pacer.awaitDue(i);
                boolean measuredEvent = System.currentTimeMillis() >= measureFromMillis;
                String vehicle = "bench-" + run + (measuredEvent ? "-m-" : "-w-") + (i % 500);
                Instant now = Instant.now();
                VehicleTelemetry event = VehicleTelemetry.newBuilder()
                        .setEnvelope(Envelopes.create(UUID.randomUUID().toString(), vehicle, now, now,
                                "lake-freshness-benchmark", EventTypes.versionOf(VehicleTelemetry.class), null))
                        .setVehicleId(vehicle).setPosition(GeoPoint.newBuilder().setLat(51.9).setLon(4.5).build())
                        .setSpeedKmh(50).setCoolantTempC(90).setOdometerKm(1000 + i).setFaultCodes(List.of()).build();
                producer.send(new ProducerRecord<>(topic, vehicle, serializer.serialize(topic, event)));
                produced[0]++;
                if (measuredEvent) {
                    produced[1]++;
                }
            }
            producer.flush();
        } finally {
            producing.set(false);
        }
    }
}
