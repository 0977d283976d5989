package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Phaser;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Freshness of the serving projections: parcel scans are produced at a fixed rate (bounded in count and time), and
 * every {@code --probe-every-ms} one probe scan for a new parcel id is sent among them; the api is asked for that
 * parcel until it answers 200, and the time from {@code send()} to visible is recorded. Also {@code --seed N} writes
 * scans for parcels P-bench-0..N-1 once, for the lookup benchmark (wrk). Loopback only.
 *
 * <p>Every probe is polled on its own (asynchronous requests, no pool to queue behind), every millisecond for its first
 * 10 ms and then at 10 % of its age: a figure is at most 10 % (or 1 ms) above the true time, so a probe visible in
 * under 91 ms is never counted at 100 ms or more, and a probe that takes long costs a few requests a second instead
 * of a thousand (about 70 requests over 10 s). An earlier version polled from a pool of four threads every
 * millisecond: once probes took longer than the pool could drain (4 pollers, 10 probes a second: about 400 ms), they
 * queued, their figures grew with the queue towards the 10 s limit, and the polls took CPU from the app under test.
 */
@CommandLine.Command(name = "freshness-benchmark", mixinStandardHelpOptions = true)
public final class FreshnessBenchmark implements Callable<Integer> {
    @CommandLine.Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092")
    String bootstrap;
    @CommandLine.Option(names = "--registry", defaultValue = "http://127.0.0.1:8085")
    String registry;
    @CommandLine.Option(names = "--api", defaultValue = "http://127.0.0.1:8082")
    URI api;
    @CommandLine.Option(names = "--data", defaultValue = ".streamhouse", description = "the stack's data directory, for its ops token")
    java.nio.file.Path data;
    private String opsToken;
    @CommandLine.Option(names = "--rate", defaultValue = "5000", description = "events per second")
    int rate;
    @CommandLine.Option(names = "--seconds", defaultValue = "60", description = "measured seconds, after the warm-up")
    int seconds;
    @CommandLine.Option(names = "--warmup-seconds", defaultValue = "10", description = "seconds at the same rate, with"
            + " probes, before the measured ones; their probes are reported apart. On a warm stack the slow probes of a"
            + " run were in its first second or two, while this tool (a fresh JVM each run) started; how much of that is"
            + " the tool and how much the step from idle was not separated (docs/benchmarks.md, \"Serving\")")
    int warmupSeconds;
    @CommandLine.Option(names = "--parcels", defaultValue = "50000", description = "distinct parcel ids of the background"
            + " load: 50,000 at 5,000/s scans each parcel every 10 s; with few ids each key gets several versions per"
            + " second, which a real parcel never does, and the versioned store pays for every version kept")
    int parcels;
    @CommandLine.Option(names = "--probe-every-ms", defaultValue = "100")
    int probeEveryMs;
    @CommandLine.Option(names = "--max-polls-per-second", defaultValue = "200", description = "the probes' lookups in"
            + " all, at most: each probe asks again after a tenth of its age, so probes of a lagging app ask ever more"
            + " often together; unbounded, their lookups (each authenticated, most answered 404) took as much of the"
            + " api's CPU as its stream threads, and the app fell further behind because it was measured")
    int maxPollsPerSecond;
    @CommandLine.Option(names = "--seed", defaultValue = "0", description = "only write one scan for each of N parcels, then exit")
    int seed;

    /** The pacing grain: sends are batched per millisecond at most, so the generator sleeps between batches. */
    private static final long PACING_NANOS = 1_000_000L;
    private static final GeoPoint RTM = GeoPoint.newBuilder().setLat(51.9244).setLon(4.4777).build();

    public static void main(String[] args) {
        System.exit(BenchmarkCommand.execute("freshness-benchmark", new FreshnessBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        String host = api.getHost();
        if (!"127.0.0.1".equals(host) && !"localhost".equals(host)) {
            throw new IllegalArgumentException("load goes to loopback only, not " + api);
        }
        if (rate < 1 || rate > 50_000 || seconds < 1 || seconds > 600 || warmupSeconds < 0 || warmupSeconds > 600
                || maxPollsPerSecond < 1 || maxPollsPerSecond > 10_000) {
            throw new IllegalArgumentException("--rate 1..50000, --seconds 1..600, --warmup-seconds 0..600 and"
                    + " --max-polls-per-second 1..10000");
        }
        var serializer = new AvroSerializer<>(new CachingSchemaRegistryClient(registry), ParcelScanned.class, false);
        // Two producers: the background load is batched as a throughput-minded client would (linger 20 ms), the probes
        // go out at once (linger 0), so what is measured is the pipeline and not this tool's batching. One producer
        // with linger 1 ms sent a request per millisecond and took 0.75 to 1 core of this 2-core machine by itself
        // (docs/benchmarks.md, "Serving").
        try (var producer = new KafkaProducer<>(producerConfig(20), new StringSerializer(), new ByteArraySerializer());
             var probeProducer = new KafkaProducer<>(producerConfig(0), new StringSerializer(), new ByteArraySerializer())) {
            if (seed > 0) {
                for (int i = 0; i < seed; i++) {
                    send(producer, serializer, "P-bench-" + i, "bench-seed-" + i, Instant.now());
                }
                producer.flush();
                System.out.printf("seeded %d parcels P-bench-0..P-bench-%d%n", seed, seed - 1);
                return 0;
            }
            return run(producer, probeProducer, serializer);
        }
    }

    private Map<String, Object> producerConfig(int lingerMs) {
        return KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                .producer(bootstrap, Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, lingerMs, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true));
    }

    private int run(KafkaProducer<String, byte[]> producer, KafkaProducer<String, byte[]> probeProducer,
                    AvroSerializer<ParcelScanned> serializer) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        opsToken = io.streamhouse.security.StackTokens.read(data, io.streamhouse.security.Roles.OPS);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "probe-timer");
            t.setDaemon(true);
            return t;
        });
        // Per phase (0 warm-up, 1 measured): the probes seen, and those never seen.
        List<ConcurrentLinkedQueue<Seen>> latencies = List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
        List<ConcurrentLinkedQueue<String>> lost = List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
        Phaser pending = new Phaser(1);
        String run = Long.toString(System.currentTimeMillis(), 36);
        long start = System.nanoTime();
        long warmup = (long) rate * warmupSeconds;
        long total = warmup + (long) rate * seconds;
        long measuredFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long periodNanos = 1_000_000_000L / rate;
        long nextProbe = start;
        int probes = 0;
        for (long i = 0; i < total; i++) {
            long due = start + i * periodNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                // Parks until the next due send (sends falling due meanwhile go out together): spinning instead
                // would take a whole core from the app under test on a 2-core machine.
                LockSupport.parkNanos(Math.max(wait, PACING_NANOS));
            }
            send(producer, serializer, "P-load-" + (i % parcels), "load-" + run + "-" + i, Instant.now());
            if (System.nanoTime() >= nextProbe) {
                nextProbe += probeEveryMs * 1_000_000L;
                String id = "P-probe-" + run + "-" + probes++;
                long sentAt = System.nanoTime();
                send(probeProducer, serializer, id, "probe-" + id, Instant.now());
                pending.register();
                int phase = i < warmup ? 0 : 1;
                long offsetMs = (sentAt - (phase == 0 ? start : measuredFrom)) / 1_000_000;
                new Probe(http, timer, id, sentAt, offsetMs, latencies.get(phase), lost.get(phase), pending).poll();
            }
        }
        long elapsed = System.nanoTime() - measuredFrom;
        try {
            pending.awaitAdvanceInterruptibly(pending.arriveAndDeregister(), 30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            System.out.println("some probes were still unresolved 30 s after the last send");
        }
        timer.shutdownNow();
        System.out.printf("sent %d scans in %.1f s (%.0f/s) after %d s of warm-up at the same rate%n",
                total - warmup, elapsed / 1e9, (total - warmup) / (elapsed / 1e9), warmupSeconds);
        if (warmupSeconds > 0) {
            report("warm-up", latencies.get(0), lost.get(0));
        }
        report("measured", latencies.get(1), lost.get(1));
        System.out.printf("lookups: %d (at most %d/s; %d waited for that budget), answers other than 200 and 404: %s%n",
                polls.get(), maxPollsPerSecond, delayedPolls.get(), otherAnswers.isEmpty() ? "none" : otherAnswers);
        return lost.get(1).isEmpty() && otherAnswers.isEmpty() ? 0 : 1;
    }

    /** The earliest time (System.nanoTime) the next lookup may go out: the probes' shared budget. */
    private final java.util.concurrent.atomic.AtomicLong nextPollSlot = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
    private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong delayedPolls = new java.util.concurrent.atomic.AtomicLong();
    /** Status codes other than 200 (visible) and 404 (not yet) with their counts: a 429 or 5xx makes the run invalid. */
    private final Map<Integer, Long> otherAnswers = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** When a lookup wanted at {@code wantedAt} may go: then, or the next free slot of the budget. */
    private long pollSlot(long wantedAt) {
        long gap = 1_000_000_000L / maxPollsPerSecond;
        long slot = nextPollSlot.accumulateAndGet(wantedAt, (previous, wanted) ->
                previous == Long.MIN_VALUE ? wanted : Math.max(wanted, previous + gap));
        if (slot > wantedAt) {
            delayedPolls.incrementAndGet();
        }
        return slot;
    }

    /** A probe seen: when it was sent, in ms from the start of its phase, and how long it took to be visible. */
    private record Seen(long sentOffsetMs, long micros) {
    }

    private static void report(String phase, Collection<Seen> latencies, Collection<String> lost) {
        List<Long> sorted = new ArrayList<>(latencies.size());
        for (Seen l : latencies) {
            sorted.add(l.micros());
        }
        Collections.sort(sorted);
        System.out.printf("%s: %d probes, %d visible, %d not visible within 10 s%n", phase, sorted.size() + lost.size(),
                sorted.size(), lost.size());
        if (!sorted.isEmpty()) {
            System.out.printf("%s: produce -> visible over HTTP (ms): p50 %.1f  p90 %.1f  p99 %.1f  max %.1f%n", phase,
                    pct(sorted, 50), pct(sorted, 90), pct(sorted, 99), sorted.get(sorted.size() - 1) / 1000.0);
            System.out.println(phase + ": probes over 100 ms, by second of the phase they were sent in (second:count max ms):"
                    + slowBySecond(latencies));
        }
    }

    /** One probe's polls: asynchronous, each scheduled after the previous answer, until 200 or 10 s after the send. */
    private final class Probe {
        private final HttpClient http;
        private final ScheduledExecutorService timer;
        private final String id;
        private final long sentAt;
        private final long deadline;
        private final long sentOffsetMs;
        private final ConcurrentLinkedQueue<Seen> latencies;
        private final ConcurrentLinkedQueue<String> lost;
        private final Phaser pending;
        private final HttpRequest request;

        Probe(HttpClient http, ScheduledExecutorService timer, String id, long sentAt, long sentOffsetMs,
              ConcurrentLinkedQueue<Seen> latencies,
              ConcurrentLinkedQueue<String> lost, Phaser pending) {
            this.http = http;
            this.timer = timer;
            this.id = id;
            this.sentAt = sentAt;
            this.sentOffsetMs = sentOffsetMs;
            this.deadline = sentAt + TimeUnit.SECONDS.toNanos(10);
            this.latencies = latencies;
            this.lost = lost;
            this.pending = pending;
            this.request = HttpRequest.newBuilder(api.resolve("/v1/parcels/" + id)).timeout(Duration.ofSeconds(2))
                    .header("Authorization", "Bearer " + opsToken).GET().build();
        }

        void poll() {
            polls.incrementAndGet();
            http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                long now = System.nanoTime();
                if (e == null && r.statusCode() != 200 && r.statusCode() != 404) {
                    otherAnswers.merge(r.statusCode(), 1L, Long::sum);
                }
                if (e == null && r.statusCode() == 200) {
                    latencies.add(new Seen(sentOffsetMs, (now - sentAt) / 1000));
                    pending.arriveAndDeregister();
                } else if (now >= deadline) {
                    lost.add(id);
                    pending.arriveAndDeregister();
                } else {
                    long next = Math.max(TimeUnit.MILLISECONDS.toNanos(1), (now - sentAt) / 10);
                    long at = pollSlot(now + Math.min(next, deadline - now));
                    timer.schedule(this::poll, at - now, TimeUnit.NANOSECONDS);
                }
            });
        }
    }

    /** Where in the run the slow probes were: clustered seconds point at stalls, spread ones at steady queueing. */
    private static String slowBySecond(Collection<Seen> latencies) {
        java.util.TreeMap<Long, long[]> bySecond = new java.util.TreeMap<>(); // second -> {count, max micros}
        for (Seen l : latencies) {
            if (l.micros() > 100_000) {
                long[] c = bySecond.computeIfAbsent(l.sentOffsetMs() / 1000, k -> new long[2]);
                c[0]++;
                c[1] = Math.max(c[1], l.micros());
            }
        }
        StringBuilder out = new StringBuilder();
        bySecond.forEach((second, c) -> out.append(' ').append(second).append(':').append(c[0]).append(' ').append(c[1] / 1000));
        return bySecond.isEmpty() ? " none" : out.toString();
    }

    private static double pct(List<Long> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1000.0;
    }

    private static void send(KafkaProducer<String, byte[]> producer, AvroSerializer<ParcelScanned> serializer,
                             String parcel, String eventId, Instant at) {
        ParcelScanned scan = ParcelScanned.newBuilder()
                .setEnvelope(Envelopes.create(eventId, parcel, at, at, "freshness-benchmark", EventTypes.versionOf(ParcelScanned.class), null))
                .setParcelId(parcel).setHubId("hub-rtm").setStatus(ParcelStatus.SORTED).setVehicleId(null)
                .setLocation(RTM).setPromisedBy(null).build();
        producer.send(new ProducerRecord<>(Topics.PARCEL_SCANS.name(), parcel, serializer.serialize(Topics.PARCEL_SCANS.name(), scan)));
    }
}
