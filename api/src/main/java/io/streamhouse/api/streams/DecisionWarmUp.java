package io.streamhouse.api.streams;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.Device;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Decides synthetic requests with the decision app's own topology before the app reports ready, so that the first
 * real requests after a deploy or a restart meet compiled code rather than the interpreter and a JIT compiler busy on
 * the same cores (docs/benchmarks.md, "first minute"). The topology runs on a {@link TopologyTestDriver}: no broker,
 * no topic and no store of the live application is touched, the schemas are registered in memory only, and the
 * stores are in memory (see {@link #run}); only the state directory's lock and checkpoint files are written, to a
 * temporary directory that is deleted afterwards.
 *
 * <p>The requests take every path of a decision: the default rules, cards seen again (card activity and velocity),
 * amounts under and over the thresholds, foreign merchants, a gambling merchant code, and a repeated request (answered
 * again from the {@code decided} store). None conflicts with another: each conflict logs a warning.
 */
public final class DecisionWarmUp {
    /** What a warm-up did: requests piped, records the topology wrote, and how long it took. */
    public record Result(int requests, long written, Duration took) {
    }

    private static final List<Merchant> MERCHANTS = List.of(
            merchant("warm-up-grocer", "5411", "NL"), merchant("warm-up-fuel", "5541", "BE"),
            merchant("warm-up-casino", "7995", "MT"), merchant("warm-up-jeweller", "5944", "US"));
    private static final GeoPoint WHERE = GeoPoint.newBuilder().setLat(51.9244).setLon(4.4777).build();
    private static final int CARDS = 500;

    private DecisionWarmUp() {
    }

    /**
     * Pipes up to {@code requests} synthetic requests through {@code topology} (made with the serdes it is given, its
     * own stores in memory: {@link io.streamhouse.detection.decision.DecisionTopology.Storage#IN_MEMORY}), stopping
     * early once {@code budget} has passed.
     */
    public static Result run(Function<TopicSerdes, Topology> topology, int requests, Duration budget) {
        long started = System.nanoTime();
        long deadline = started + budget.toNanos();
        Path state;
        try {
            state = Files.createTempDirectory(scratch(), "streamhouse-decision-warm-up");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int piped = 0;
        long written = 0;
        try {
            TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "streamhouse-decision-warm-up");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "warm-up.invalid:9092");
            props.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
            // The driver commits after every record: persistent stores would flush RocksDB and sync a checkpoint
            // file per request, and the warm-up would be about the disk rather than the code it is there to compile.
            props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
            try (var driver = new TopologyTestDriver(topology.apply(serdes), props)) {
                var rules = driver.createInputTopic(Topics.RULES.name(), new StringSerializer(),
                        serdes.valueSerde(Topics.RULES).serializer());
                for (RuleDefinition rule : DefaultRules.definitions()) {
                    rules.pipeInput(rule.getRuleId(), rule);
                }
                var input = driver.createInputTopic(Topics.TRANSACTION_REQUESTS.name(), new StringSerializer(),
                        serdes.valueSerde(Topics.TRANSACTION_REQUESTS).serializer());
                var decisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                        new ByteArrayDeserializer());
                var deadLetters = driver.createOutputTopic(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name(),
                        new StringDeserializer(), new ByteArrayDeserializer());
                Instant t0 = Instant.now().minus(Duration.ofDays(1));
                while (piped < requests && System.nanoTime() < deadline) {
                    TransactionAuthorizationRequested request = request(piped, t0);
                    input.pipeInput(request.getCardToken(), request);
                    piped++;
                    if (piped % 256 == 0 || piped == requests) {
                        written += decisions.readRecordsToList().size() + deadLetters.readRecordsToList().size();
                    }
                }
                written += decisions.readRecordsToList().size() + deadLetters.readRecordsToList().size();
            }
        } finally {
            delete(state);
        }
        return new Result(piped, written, Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * The {@code i}-th synthetic request: one of {@value #CARDS} cards, a second apart per card. Every 97th repeats
     * the previous request (answered again from the store).
     */
    static TransactionAuthorizationRequested request(int i, Instant t0) {
        int n = i % 97 == 96 ? i - 1 : i;
        String id = "warm-up-" + n;
        String card = "tok_warm_up_" + (n % CARDS);
        Merchant merchant = MERCHANTS.get((n / CARDS + n) % MERCHANTS.size());
        String amount = switch (n % 7) {
            case 0 -> "1250.00";
            case 1 -> "3.50";
            case 2 -> "640.00";
            default -> (10 + n % 300) + ".25";
        };
        Instant at = t0.plusSeconds(n / CARDS).plusMillis(n % CARDS);
        return TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(Envelopes.create("evt-" + id, card, at, at.plusMillis(3), "warm-up",
                        EventTypes.versionOf(TransactionAuthorizationRequested.class), null))
                .setTransactionId(id)
                .setCardToken(card)
                .setCustomerId("warm-up-c-" + (n % CARDS))
                .setMerchant(merchant)
                .setAmount(Monies.of(amount, n % 11 == 0 ? "USD" : "EUR"))
                .setChannel(n % 3 == 0 ? Channel.CONTACTLESS : Channel.ECOMMERCE)
                .setLocation(WHERE)
                .setSubmittedBy("warm-up")
                .setDevice(Device.newBuilder().setDeviceId("warm-up-dev-" + (n % 13)).setIpAddress("192.0.2." + (n % 250))
                        .setUserAgent(null).build())
                .build();
    }

    /** Where the driver's state directory goes: memory-backed {@code /dev/shm} where there is one. */
    static Path scratch() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static Merchant merchant(String id, String mcc, String country) {
        return Merchant.newBuilder().setMerchantId(id).setName(id).setMcc(mcc).setCountry(country).build();
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: what is left is left to the OS
        }
    }
}
