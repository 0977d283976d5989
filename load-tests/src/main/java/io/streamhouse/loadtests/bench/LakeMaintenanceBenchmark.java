package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * File and metadata growth of the lake under a steady load: telemetry produced open-loop at a fixed rate into
 * {@code fleet.vehicles.telemetry} of a running stack ({@code ./streamhouse up}, lake on) for {@code --duration}, and
 * every {@code --sample}, for each table of {@code streamhouse.*} and in total: data files in the current snapshot,
 * data files on disk, manifests of the current snapshot, files in the metadata directory (metadata JSON, manifest
 * lists, manifests), and snapshots. Whether maintenance runs is the stack's setting ({@code up --maintenance off} for
 * the baseline); the run reports the query service's last maintenance pass when {@code --sql-url} is given. Counts
 * come from Iceberg's metadata, and for "on disk" from listing the warehouse.
 */
@Command(name = "lake-maintenance-benchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Lake file, manifest, metadata-file and snapshot counts per minute under a fixed load.")
public final class LakeMaintenanceBenchmark implements Callable<Integer> {

    @Mixin
    LakeCatalogOptions lake;
    @Option(names = "--sql-url", description = "The query service's URL (./streamhouse status, ENDPOINT of sql), to report its last maintenance pass.")
    URI sqlUrl;
    @Option(names = "--rate", defaultValue = "200", description = "Events per second (default ${DEFAULT-VALUE}).")
    int rate;
    @Option(names = "--duration", defaultValue = "PT10M", description = "Run time (default ${DEFAULT-VALUE}).")
    Duration duration;
    @Option(names = "--sample", defaultValue = "PT1M", description = "Sampling interval (default ${DEFAULT-VALUE}).")
    Duration sample;
    @Option(names = "--label", defaultValue = "run", description = "Label printed on every line (e.g. on, off).")
    String label;

    public static void main(String[] args) {
        System.exit(BenchmarkCommand.execute("lake-maintenance-benchmark", new LakeMaintenanceBenchmark(), args));
    }

    /** One table at one moment. */
    record Counts(long dataFiles, long dataFilesOnDisk, long manifests, long metadataDirFiles, long snapshots) {
        Counts plus(Counts o) {
            return new Counts(dataFiles + o.dataFiles, dataFilesOnDisk + o.dataFilesOnDisk, manifests + o.manifests,
                    metadataDirFiles + o.metadataDirFiles, snapshots + o.snapshots);
        }
    }

    @Override
    public Integer call() throws Exception {
        String remote = lake.notLoopback();
        if (remote != null) {
            io.streamhouse.control.CliLog.terminalError().println("loopback only: " + remote);
            return 2;
        }
        if (rate < 1 || duration.isNegative() || duration.isZero() || sample.isNegative() || sample.isZero()) {
            io.streamhouse.control.CliLog.terminalError().println("--rate, --duration and --sample must be positive");
            return 2;
        }
        Catalog catalog = lake.catalog();
        List<TableIdentifier> tables = catalog.listTables(Namespace.of("streamhouse")).stream()
                .sorted(Comparator.comparing(TableIdentifier::name)).toList();
        if (tables.isEmpty()) {
            io.streamhouse.control.CliLog.terminalError().println("no tables in streamhouse.* of " + lake.catalogUri + ": is the lake on (./streamhouse up without --without lake)?");
            return 2;
        }
        System.out.printf("[%s] load: %d telemetry events/s into %s for %s, sampled every %s; %d tables%n", label, rate,
                Topics.VEHICLE_TELEMETRY.name(), duration, sample, tables.size());
        AtomicLong produced = new AtomicLong();
        Thread producer = new Thread(() -> produce(produced), "lake-maintenance-bench-producer");
        producer.start();
        long t0 = System.nanoTime();
        Counts first = print(catalog, tables, 0, produced.get(), true);
        Counts last = first;
        for (int minute = 1; ; minute++) {
            long due = t0 + sample.toNanos() * minute;
            while (System.nanoTime() < due) {
                Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
            }
            last = print(catalog, tables, minute, produced.get(), false);
            if (!producer.isAlive()) {
                break;
            }
        }
        producer.join();
        System.out.printf("[%s] end: produced %d; total data files %d (on disk %d), manifests %d, metadata-dir files %d, snapshots %d%n",
                label, produced.get(), last.dataFiles(), last.dataFilesOnDisk(), last.manifests(), last.metadataDirFiles(), last.snapshots());
        if (sqlUrl != null) {
            System.out.println("[" + label + "] query service's maintenance: " + maintenance());
        }
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
        return 0;
    }

    private Counts print(Catalog catalog, List<TableIdentifier> tables, int sampleNo, long produced, boolean header) {
        Counts total = new Counts(0, 0, 0, 0, 0);
        StringBuilder perTable = new StringBuilder();
        for (TableIdentifier id : tables) {
            Counts c = counts(catalog.loadTable(id));
            total = total.plus(c);
            perTable.append(String.format("  [%s] t=%-3d %-40s data %6d (disk %6d)  manifests %5d  metadata-dir %6d  snapshots %6d%n",
                    label, sampleNo, id.name(), c.dataFiles(), c.dataFilesOnDisk(), c.manifests(), c.metadataDirFiles(), c.snapshots()));
        }
        System.out.printf("[%s] t=%-3d %s produced %8d  TOTAL data %6d (disk %6d)  manifests %5d  metadata-dir %6d  snapshots %6d%n",
                label, sampleNo, Instant.now().toString().substring(11, 19), produced, total.dataFiles(), total.dataFilesOnDisk(),
                total.manifests(), total.metadataDirFiles(), total.snapshots());
        System.out.print(perTable);
        System.out.flush();
        return total;
    }

    private static Counts counts(Table table) {
        Snapshot s = table.currentSnapshot();
        long dataFiles = s == null ? 0 : Long.parseLong(s.summary().getOrDefault("total-data-files", "0"));
        long manifests = s == null ? 0 : s.allManifests(table.io()).size();
        long snapshots = 0;
        for (Snapshot ignored : table.snapshots()) {
            snapshots++;
        }
        Path location = Path.of(URI.create(table.location()));
        return new Counts(dataFiles, filesUnder(location.resolve("data")), manifests, filesUnder(location.resolve("metadata")), snapshots);
    }

    /**
     * Regular files, hidden ones (Hadoop's .crc checksums) not counted. The sink and maintenance delete files while the
     * tree is walked (a 75-minute run died on a vanished .crc at minute 30): a file gone between listing and reading its
     * attributes is simply not counted.
     */
    private static long filesUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        long[] count = {0};
        try {
            Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && !file.getFileName().toString().startsWith(".")) {
                        count[0]++;
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof java.nio.file.NoSuchFileException) {
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count[0];
    }

    private String maintenance() {
        try {
            var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    sqlUrl.resolve("/v1/maintenance")).timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body();
        } catch (IOException e) {
            return "unreachable: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private void produce(AtomicLong produced) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(lake.registry);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                     .producer(lake.bootstrap, Map.of(
                     ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5)), new StringSerializer(), new ByteArraySerializer())) {
            AvroSerializer<VehicleTelemetry> serializer = new AvroSerializer<>(client, VehicleTelemetry.class, false);
            String topic = Topics.VEHICLE_TELEMETRY.name();
            Pacer pacer = new Pacer(System.nanoTime(), rate, duration);
            for (long i = 0; i < pacer.count(); i++) {
                pacer.awaitDue(i);
                String vehicle = "maint-" + run + "-" + (i % 500);
                Instant now = Instant.now();
                VehicleTelemetry event = VehicleTelemetry.newBuilder()
                        .setEnvelope(Envelopes.create(UUID.randomUUID().toString(), vehicle, now, now,
                                "lake-maintenance-benchmark", EventTypes.versionOf(VehicleTelemetry.class), null))
                        .setVehicleId(vehicle).setPosition(GeoPoint.newBuilder().setLat(51.9).setLon(4.5).build())
                        .setSpeedKmh(50).setCoolantTempC(90).setOdometerKm(1000 + i).setFaultCodes(List.of()).build();
                producer.send(new ProducerRecord<>(topic, vehicle, serializer.serialize(topic, event)));
                produced.incrementAndGet();
            }
            producer.flush();
        }
    }
}
