package io.streamhouse.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/** File helpers for data directories and logs. */
public final class Files2 {
    private Files2() {
    }

    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** The last lines of a log, decoded leniently; a note instead of an exception if it cannot be read. */
    static String tail(Path file, int lines) {
        try {
            List<String> all = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (NoSuchFileException e) {
            return "(no log file)";
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e + ")";
        }
    }
}
