package io.streamhouse.detection.cep;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which retained checkpoint the CEP job resumes from: the newest {@code <job id>/chk-N} that holds a {@code _metadata}
 * file (a checkpoint without one never completed). JDK only, so a process without Flink on its classpath (the
 * {@code kill-cep} drill) can ask the same question the job answers at its start.
 *
 * <p>Flink deletes a subsumed checkpoint's directory asynchronously, also after the job was cancelled, so a directory
 * may vanish while this looks: such a directory is skipped, not an error ({@code Files.walk} failed on it, seen in a
 * CI run of {@code CepJobIT}).
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
        Path newest = null;
        long newestModified = Long.MIN_VALUE;
        for (Path job : children(root)) {
            for (Path checkpoint : children(job)) {
                if (!checkpoint.getFileName().toString().startsWith("chk-")) {
                    continue;
                }
                Optional<Long> modified = modified(checkpoint.resolve("_metadata"));
                if (modified.isPresent() && modified.get() > newestModified) {
                    newest = checkpoint;
                    newestModified = modified.get();
                }
            }
        }
        return Optional.ofNullable(newest).map(p -> p.toAbsolutePath().toString());
    }

    /** The entries of {@code dir}; none when it is not a directory or is gone (deleted while we look). */
    static List<Path> children(Path dir) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                entries.add(p);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (DirectoryIteratorException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return entries;
            }
            throw new UncheckedIOException(e.getCause());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    /** When the regular file {@code p} was last modified; empty when it is missing (or gone). */
    private static Optional<Long> modified(Path p) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(p, BasicFileAttributes.class);
            return attributes.isRegularFile() ? Optional.of(attributes.lastModifiedTime().toMillis()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
