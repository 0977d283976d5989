package io.streamhouse.api.sql;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.streamhouse.lakequery.LakeQueryOptions;
import io.streamhouse.lakequery.LakeQueryProcess;
import io.streamhouse.platform.SharedPlatform;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** The lake's query service (its own JVM) on the shared platform, Kafka tables only; its URL handed to the app. */
public class LakeQueryTestResource implements QuarkusTestResourceLifecycleManager {
    private LakeQueryProcess engine;

    @Override
    public Map<String, String> start() {
        var platform = SharedPlatform.get();
        Path dir = platform.options().dataDir().resolve("lake-query-" + ProcessHandle.current().pid());
        engine = LakeQueryProcess.start(LakeQueryOptions.of(dir, platform.bootstrapServers(),
                platform.schemaRegistryUrl().toString(), Optional.empty()));
        engine.awaitReady(Duration.ofSeconds(120));
        return Map.of("streamhouse.lake-query.url", engine.url().toString());
    }

    @Override
    public void stop() {
        if (engine != null) {
            engine.close();
        }
    }
}
