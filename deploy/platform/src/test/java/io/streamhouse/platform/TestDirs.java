package io.streamhouse.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fresh directories under the module's target/ (failsafe runs with the module as working directory). */
final class TestDirs {
    private TestDirs() {
    }

    static Path fresh(String prefix) throws IOException {
        Path base = Path.of("target", "it-data").toAbsolutePath();
        Files.createDirectories(base);
        return Files.createTempDirectory(base, prefix + "-");
    }
}
