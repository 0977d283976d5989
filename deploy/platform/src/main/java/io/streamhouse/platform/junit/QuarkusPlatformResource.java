package io.streamhouse.platform.junit;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.streamhouse.platform.SharedPlatform;

import java.util.Map;

/**
 * Points a {@code @QuarkusTest} app at the test JVM's shared platform (broker, registry, PostgreSQL, topics). The
 * platform outlives the app: it is shared by every test class in the JVM and stopped when the JVM ends.
 */
public class QuarkusPlatformResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        var platform = SharedPlatform.get();
        return Map.of(
                "streamhouse.kafka.bootstrap-servers", platform.bootstrapServers(),
                "streamhouse.schema-registry.url", platform.schemaRegistryUrl().toString(),
                // Streams state belongs to one cluster: a directory left by an earlier test broker holds offsets this
                // broker never had, and a global store fails hard on them. A fresh one per platform.
                "kafka-streams.state.dir", platform.options().dataDir().resolve("kafka-streams-state").toString());
    }

    @Override
    public void stop() {
        // The shared platform is closed at the end of the test JVM, not per app.
    }
}
