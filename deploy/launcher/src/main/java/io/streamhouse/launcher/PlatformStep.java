package io.streamhouse.launcher;

import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.security.kafka.KafkaClientSettings;

import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The Kafka broker (child JVM) and the schema registry; PostgreSQL is a step of its own ({@link PostgresStep}). Every Kafka client of the stack logs in with its
 * own SCRAM user and may do only what its ACLs allow (docs/kafka-security.md), unless
 * {@code STREAMHOUSE_KAFKA_SECURITY_PROTOCOL} says otherwise.
 */
final class PlatformStep implements StartStep {

    @Override
    public String name() {
        return "platform";
    }

    @Override
    public String announce(StartContext c) {
        return "Starting the platform (Kafka broker, schema registry) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) throws Exception {
        RunningStack stack = c.stack;
        stack.kafkaSettings = KafkaClientSettings.useSaslUnlessConfigured(
                io.streamhouse.platform.PlatformOptions.kafkaCredentialsDir(c.data.resolve("platform")));
        stack.platform = EmbeddedPlatform.start(c.options.platformOptions(c.data.resolve("platform")), stack.supervisor);
        out.accept(String.format("  Kafka %s, schema registry %s (%.1f s)", stack.platform.bootstrapServers(),
                stack.platform.schemaRegistryUrl(), c.seconds()));
        if (stack.platform.kafkaSecured()) {
            out.accept("  Kafka takes SASL/SCRAM-SHA-512 logins only, one user per service, each limited by ACLs; a client"
                    + " of your own logs in with");
            out.accept("    " + KafkaClientSettings.childEnvironment().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")));
            out.accept("    and one of the users in that directory (docs/kafka-security.md)");
        } else {
            out.accept("  Kafka without authentication (STREAMHOUSE_KAFKA_SECURITY_PROTOCOL=PLAINTEXT)");
        }
    }
}
