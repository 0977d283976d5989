package io.streamhouse.lineage;

import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.transports.FileConfig;
import io.openlineage.client.transports.FileTransport;
import io.openlineage.client.transports.Transport;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TopologyDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One run of a processor, as OpenLineage sees it: {@link #start()} emits START, {@link #fail} FAIL and
 * {@link #complete()} COMPLETE; for a Kafka Streams application its state listener ({@link #onChange}) emits FAIL when
 * Streams reaches ERROR and COMPLETE when it stops. {@link #close()} emits COMPLETE if neither came (a shutdown that
 * closed the producer first), then closes the outputs. Each run emits one START and at most one of COMPLETE / FAIL; a
 * new run id per start. Thread-safe: stream threads and the shutdown thread may race to end a run.
 *
 * <p>Heartbeats: while a run is started, RUNNING every {@link #HEARTBEAT} (a daemon thread of its own) to the topic
 * only; the file stays the log of starts and ends. A run whose latest event is older than {@link #STALE_AFTER} has
 * stopped without a word ({@code kill -9}, a lost machine): {@link LineageGraph} counts it stale, not running.
 *
 * <p>Not a {@code KafkaStreams.StateListener} itself (pass {@code run::onChange}): the Flink job and the platform use
 * this class without Kafka Streams on their classpath.
 */
public final class LineageRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LineageRun.class);

    /** How often a started run says it still runs. */
    public static final Duration HEARTBEAT = Duration.ofMinutes(5);
    /** Three heartbeats missed: the run is taken for gone. */
    public static final Duration STALE_AFTER = HEARTBEAT.multipliedBy(3);

    private enum Phase { NEW, STARTED, ENDED }

    private final JobLineage lineage;
    private final List<Transport> transports;
    private final Clock clock;
    private final UUID runId = UUID.randomUUID();
    private final Duration heartbeat;
    private Phase phase = Phase.NEW;
    private ScheduledExecutorService heartbeats;

    /** A run without heartbeats. */
    public LineageRun(JobLineage lineage, List<Transport> transports, Clock clock) {
        this(lineage, transports, clock, null);
    }

    /** @param heartbeat how often to emit RUNNING to the topic while started; null: never */
    public LineageRun(JobLineage lineage, List<Transport> transports, Clock clock, Duration heartbeat) {
        this.lineage = lineage;
        this.transports = List.copyOf(transports);
        this.clock = clock;
        this.heartbeat = heartbeat;
    }

    /**
     * The run of {@code applicationId} whose topology is {@code description}, writing where {@code outputs} say: to
     * {@code lineage.events} through a producer of its own on {@code bootstrapServers} with the application's Kafka
     * security settings {@code clientSecurity} ({@code KafkaClientSettings.security()}), and/or to the file.
     */
    public static LineageRun forStreams(String applicationId, String bootstrapServers, TopologyDescription description,
                                        LineageOutputs outputs, Clock clock, Map<String, String> clientSecurity) {
        return of(new StreamsLineage(applicationId, bootstrapServers, TopologyDatasets.of(description)), bootstrapServers,
                outputs, clock, clientSecurity);
    }

    /**
     * The run of any processor's {@code lineage}, writing where {@code outputs} say: to {@code lineage.events} on
     * {@code bootstrapServers} through a producer of its own (client id {@code <job name>-lineage}) with the
     * processor's Kafka security settings {@code clientSecurity}, and/or to the file.
     */
    public static LineageRun of(JobLineage lineage, String bootstrapServers, LineageOutputs outputs, Clock clock,
                                Map<String, String> clientSecurity) {
        var transports = new ArrayList<Transport>();
        if (outputs.topic()) {
            transports.add(new TopicTransport(new KafkaProducer<>(producerProperties(lineage.jobName(), bootstrapServers, clientSecurity),
                    new StringSerializer(), new StringSerializer()), Topics.LINEAGE_EVENTS.name()));
        }
        outputs.file().ifPresent(file -> transports.add(new FileTransport(new FileConfig(file.toAbsolutePath().toString()))));
        return new LineageRun(lineage, transports, clock, HEARTBEAT);
    }

    /** Short timeouts: a broker that is away delays a start or a shutdown by seconds, not minutes. */
    static Map<String, Object> producerProperties(String applicationId, String bootstrapServers, Map<String, String> clientSecurity) {
        Map<String, Object> props = new java.util.HashMap<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG, applicationId + "-lineage",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000));
        props.putAll(clientSecurity);
        return props;
    }

    public UUID runId() {
        return runId;
    }

    public JobLineage lineage() {
        return lineage;
    }

    /** Emits START, once. */
    public synchronized void start() {
        if (phase != Phase.NEW) {
            return;
        }
        phase = Phase.STARTED;
        emit(lineage.start(runId, clock.instant()));
        if (heartbeat != null && transports.stream().anyMatch(t -> t instanceof TopicTransport)) {
            heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "lineage-heartbeat-" + lineage.jobName());
                t.setDaemon(true);
                return t;
            });
            heartbeats.scheduleAtFixedRate(this::running, heartbeat.toMillis(), heartbeat.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** A Kafka Streams application's state change: ERROR fails the run, NOT_RUNNING completes it. */
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        if (newState == KafkaStreams.State.ERROR) {
            fail("Kafka Streams application " + lineage.jobName() + " went from " + oldState + " to ERROR", null);
        } else if (newState == KafkaStreams.State.NOT_RUNNING) {
            complete();
        }
    }

    /** Emits FAIL with the message (and the stack trace of {@code cause}, when given), unless the run has ended. */
    public synchronized void fail(String message, Throwable cause) {
        if (phase != Phase.STARTED) {
            return;
        }
        phase = Phase.ENDED;
        stopHeartbeats();
        emit(lineage.fail(runId, clock.instant(), message, cause == null ? null : stackTrace(cause)));
    }

    /** Emits COMPLETE, unless the run has ended or never started. */
    public synchronized void complete() {
        if (phase != Phase.STARTED) {
            return;
        }
        phase = Phase.ENDED;
        stopHeartbeats();
        emit(lineage.complete(runId, clock.instant()));
    }

    /**
     * Emits RUNNING (a heartbeat) to the topic, while the run is started and not ended; returns whether it did. The
     * heartbeat thread calls it; so may anyone.
     */
    public synchronized boolean running() {
        if (phase != Phase.STARTED) {
            return false;
        }
        RunEvent event = lineage.running(runId, clock.instant());
        for (Transport transport : transports) {
            if (transport instanceof TopicTransport) {
                emit(transport, event);
            }
        }
        return true;
    }

    /** Whether the heartbeat thread has ended (or never ran), waiting for it at most {@code timeout}. */
    boolean heartbeatsStopped(Duration timeout) throws InterruptedException {
        ScheduledExecutorService h;
        synchronized (this) {
            h = heartbeats;
        }
        return h == null || h.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void stopHeartbeats() {
        if (heartbeats != null) {
            heartbeats.shutdownNow();
        }
    }

    @Override
    public synchronized void close() {
        complete();
        for (Transport transport : transports) {
            try {
                transport.close();
            } catch (Exception e) {
                LOG.warn("Closing lineage output {} failed: {}", transport.getClass().getSimpleName(), e.toString());
            }
        }
    }

    private void emit(RunEvent event) {
        for (Transport transport : transports) {
            emit(transport, event);
        }
    }

    private void emit(Transport transport, RunEvent event) {
        try {
            transport.emit(event);
        } catch (RuntimeException e) {
            LOG.warn("Lineage {} event of {} not written by {}: {}", event.getEventType(), lineage.jobName(),
                    transport.getClass().getSimpleName(), e.toString());
        }
    }

    private static String stackTrace(Throwable cause) {
        var out = new StringWriter();
        cause.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
