package io.streamhouse.lineage;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a processor's run events go: the {@code lineage.events} topic (through a producer of its own, on the app's
 * bootstrap servers) and/or a file of one JSON event per line (openlineage-java's {@code FileTransport}).
 */
public record LineageOutputs(boolean topic, Optional<Path> file) {
    public static final LineageOutputs NONE = new LineageOutputs(false, Optional.empty());

    public LineageOutputs {
        Objects.requireNonNull(file, "file");
    }

    public boolean any() {
        return topic || file.isPresent();
    }
}
