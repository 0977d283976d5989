package io.streamhouse.detection.cep;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Which retained checkpoint the CEP job resumes from: the newest {@code <job id>/chk-N} that holds a {@code _metadata}
 * file (a checkpoint without one never completed). JDK only, so a process without Flink on its classpath (the
 * {@code kill-cep} drill) can ask the same question the job answers at its start.
 */
public final class RetainedCheckpoints {

    private RetainedCheckpoints() {
    }

    /** @param dir the checkpoint directory, a path or a {@code file:} URI */
    public static Optional<String> newest(String dir) {
        Path root = dir.contains("://") ? Paths.get(URI.create(dir)) : Paths.get(dir);
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(root, 3)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .filter(p -> p.getParent().getFileName().toString().startsWith("chk-"))
                    .max(Comparator.comparingLong(RetainedCheckpoints::modified))
                    .map(p -> p.getParent().toAbsolutePath().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
