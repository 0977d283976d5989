package io.streamhouse.api.decisions;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Properties;

/**
 * The decision topology alone in a JVM of its own, with the api's decision Streams settings (application.properties:
 * guarantee, commit interval, linger, static membership, session timeout), for {@link DecisionCrashIT} to
 * {@code kill -9}. The api adds tracing wrappers and HTTP around the same topology; booting Quarkus for every restart
 * would cost the suite several seconds each. Prints {@value #READY} once RUNNING; exits when stdin closes.
 * <p>Usage: {@code DecisionAppChild <bootstrap> <registry url> <state dir> <instance id> <guarantee>}
 */
public final class DecisionAppChild {
    static final String READY = "DECISION APP RUNNING";

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "decision-crash-it");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, args[4]);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, args[4].equals(StreamsConfig.AT_LEAST_ONCE) ? 100 : 10);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), args[3]);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
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

    private DecisionAppChild() {
    }
}
