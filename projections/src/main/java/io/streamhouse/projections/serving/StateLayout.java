package io.streamhouse.projections.serving;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What an instance's local serving state was built with, where it matters to read it back: the versioned stores'
 * segment interval. Streams files each version under a segment id computed from that interval and does not record
 * the interval, so a state directory written with another one would be read wrongly (versions in the wrong segments,
 * or dropped as expired). The layout is kept in a file next to the application's state; when it differs, or the
 * state predates the file, the instance must wipe its local state ({@code KafkaStreams.cleanUp()}) before it starts,
 * and restores the stores from their changelogs, which hold (key, value, timestamp) and so do not depend on it.
 */
public final class StateLayout {
    static final String FILE = "streamhouse-serving-layout";

    /** The layout a topology with this configuration writes. */
    public static String of(ServingTopology.Config config) {
        return "versioned-segment-ms=" + config.historySegment().toMillis() + "\n";
    }

    /**
     * @param stateDir      the Streams {@code state.dir} of this instance
     * @param applicationId the Streams application id (its state lives in {@code stateDir/applicationId})
     * @return why the local state must be wiped before starting, or null if it can be used as it is
     */
    public static String mismatch(Path stateDir, String applicationId, String layout) throws IOException {
        Path file = stateDir.resolve(FILE);
        if (Files.exists(file)) {
            String recorded = Files.readString(file, StandardCharsets.UTF_8);
            return recorded.equals(layout) ? null
                    : "local state was written with " + recorded.trim() + ", this instance uses " + layout.trim();
        }
        Path appDir = stateDir.resolve(applicationId);
        if (Files.isDirectory(appDir)) {
            try (var entries = Files.list(appDir)) {
                if (entries.findAny().isPresent()) {
                    return "local state predates " + FILE + " (written with Streams' default segment interval)";
                }
            }
        }
        return null;
    }

    /** Records the layout, once the state directory is (or will be) written with it. */
    public static void record(Path stateDir, String layout) throws IOException {
        Files.createDirectories(stateDir);
        Path tmp = stateDir.resolve(FILE + ".tmp");
        Files.writeString(tmp, layout, StandardCharsets.UTF_8);
        Files.move(tmp, stateDir.resolve(FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private StateLayout() {
    }
}
