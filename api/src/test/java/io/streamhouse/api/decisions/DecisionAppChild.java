package io.streamhouse.api.decisions;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The decision topology alone in a JVM of its own, with the api's decision Streams settings (read from its
 * application.properties: guarantee, commit interval, linger, threads, session timeout, standbys), for {@link DecisionCrashIT} to
 * {@code kill -9}. The api adds tracing wrappers and HTTP around the same topology; booting Quarkus for every restart
 * would cost the suite several seconds each. Prints {@value #READY} once RUNNING; exits when stdin closes.
 * <p>Usage: {@code DecisionAppChild <bootstrap> <registry url> <state dir> <instance id> <guarantee>}
 */
public final class DecisionAppChild {
    static final String READY = "DECISION APP RUNNING";

    public static void main(String[] args) throws Exception {
        Properties props = apiDecisionSettings();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "decision-crash-it");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), args[3]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, args[4]);
        if (!args[4].equals(StreamsConfig.AT_LEAST_ONCE)) {
            // what docs/configuration.md pairs exactly-once with (STREAMHOUSE_DECISION_COMMIT_INTERVAL_MS=10)
            props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "10");
        }
        var serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(args[1]));
        KafkaStreams streams = new KafkaStreams(DecisionTopology.build(new DecisionTopology.Config(Clock.systemUTC()), serdes), props);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING && before == KafkaStreams.State.REBALANCING) {
                System.out.println(READY);
            }
        });
        Thread watchdog = new Thread(() -> {
            try (InputStream in = System.in) {
                byte[] buffer = new byte[256];
                while (in.read(buffer) >= 0) {
                    // nothing is written; end of file means the parent is gone or asks to stop
                }
            } catch (IOException ignored) {
                // a broken pipe means the same
            }
            streams.close(Duration.ofSeconds(10));
            System.exit(0);
        }, "exit-with-parent");
        watchdog.setDaemon(true);
        streams.start();
        watchdog.start();
    }

    /**
     * The api's decision Streams settings as its application.properties sets them by default: every unprofiled
     * {@code kafka-streams.*} key, {@code ${ENV:default}} read as its default. One place, so this child runs what the
     * api runs.
     */
    static Properties apiDecisionSettings() throws IOException {
        Properties application = new Properties();
        try (InputStream in = DecisionAppChild.class.getClassLoader().getResourceAsStream("application.properties")) {
            application.load(Objects.requireNonNull(in, "the api's application.properties is not on the class path"));
        }
        Properties settings = new Properties();
        for (String key : application.stringPropertyNames()) {
            if (key.startsWith(PREFIX)) {
                settings.put(key.substring(PREFIX.length()), DEFAULT_OF.matcher(application.getProperty(key)).replaceAll("$1"));
            }
        }
        if (!settings.containsKey(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)) {
            throw new IllegalStateException("no kafka-streams settings found in the api's application.properties");
        }
        return settings;
    }

    private static final String PREFIX = "kafka-streams.";
    private static final Pattern DEFAULT_OF = Pattern.compile("\\$\\{[A-Z0-9_]+:([^}]*)}");

    private DecisionAppChild() {
    }
}
