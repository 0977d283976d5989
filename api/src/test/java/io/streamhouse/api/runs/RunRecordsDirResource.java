package io.streamhouse.api.runs;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/** An empty results directory of its own, handed to the app as the launcher hands it {@code <data>/results}. */
public class RunRecordsDirResource implements QuarkusTestResourceLifecycleManager {
    private Path dir;

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("streamhouse-results-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("streamhouse.results-dir", dir.toString());
    }

    @Override
    public void stop() {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
