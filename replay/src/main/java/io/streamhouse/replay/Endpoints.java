package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where the running stack is: the Kafka bootstrap servers and the schema registry URL, given on the command line or
 * read from the file {@code ./streamhouse up} writes into its data directory ({@value #FILE}). Reading that file also
 * makes this process's Kafka clients log in as the stack says (SASL/SCRAM with its credentials directory), unless the
 * environment chose a protocol.
 */
public record Endpoints(String bootstrapServers, String registryUrl) {
    public static final String FILE = "endpoints.properties";
    public static final String BOOTSTRAP_KEY = "kafka.bootstrap.servers";
    public static final String REGISTRY_KEY = "schema.registry.url";

    /** @throws EnvironmentException when neither the options nor the data directory say where the stack is */
    public static Endpoints resolve(String bootstrap, String registry, Path data) {
        if (bootstrap != null && registry != null) {
            return new Endpoints(bootstrap, registry);
        }
        Path file = data.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new EnvironmentException("no running stack found: " + file + " does not exist (start it with ./streamhouse up, "
                    + "or give --bootstrap-servers and --registry-url)");
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new EnvironmentException("cannot read " + file + ": " + e.getMessage());
        }
        // The stack's Kafka logins (SASL/SCRAM, its credentials directory), unless this process was told otherwise.
        KafkaClientSettings.useUnlessConfigured(p);
        String b = bootstrap != null ? bootstrap : p.getProperty(BOOTSTRAP_KEY);
        String s = registry != null ? registry : p.getProperty(REGISTRY_KEY);
        if (b == null || s == null) {
            throw new EnvironmentException(file + " lacks " + (b == null ? BOOTSTRAP_KEY : REGISTRY_KEY));
        }
        return new Endpoints(b, s);
    }

    /** The stack is not there or not answering (exit code 3), as opposed to bad input (2). */
    public static final class EnvironmentException extends RuntimeException {
        public EnvironmentException(String message) {
            super(message);
        }

        public EnvironmentException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
