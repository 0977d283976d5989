package io.streamhouse.loadtests.generator;

import io.streamhouse.security.kafka.KafkaClientSettings;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where a running stack's broker and registry are, for the generator and the scorer: given on the command line, else
 * read from {@code <data>/endpoints.properties} (written by {@code ./streamhouse up}, whose ports may have been picked
 * free), else the stack's default ports. Reading that file also makes this process's Kafka clients log in as the stack
 * says (SASL/SCRAM with its credentials directory), unless the environment already chose a protocol — as the replay
 * CLI does.
 */
public record StackEndpoints(String bootstrapServers, String registryUrl, String source) {
    public static final String FILE = "endpoints.properties";
    public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";
    public static final String DEFAULT_REGISTRY = "http://127.0.0.1:8085";

    /** {@code bootstrap} and {@code registry} win when given (non-null); the data directory fills in the rest. */
    public static StackEndpoints resolve(String bootstrap, String registry, Path data) throws IOException {
        Path file = data.resolve(FILE);
        Properties p = new Properties();
        String source = "default ports";
        if (Files.isRegularFile(file)) {
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            }
            KafkaClientSettings.useUnlessConfigured(p);
            source = file.toString();
        }
        String b = bootstrap != null ? bootstrap : p.getProperty("kafka.bootstrap.servers", DEFAULT_BOOTSTRAP);
        String s = registry != null ? registry : p.getProperty("schema.registry.url", DEFAULT_REGISTRY);
        if (bootstrap != null && registry != null) {
            source = "the command line";
        }
        return new StackEndpoints(Loopback.requireBootstrap(b), Loopback.requireUri(s, "schema registry").toString(), source);
    }
}
