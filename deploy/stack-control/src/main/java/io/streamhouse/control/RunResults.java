package io.streamhouse.control;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code <data>/results/}: one JSON file per replay or drill run against the stack, named
 * {@code <UTC start, yyyyMMdd'T'HHmmssSSS'Z'>-<kind>.json}, so the names sort oldest to newest. Each file is written
 * to a temporary name and moved into place, so a reader sees a whole file or none; after each write only the
 * newest {@link #KEEP} remain. The writer (replay) and the reader (the api's {@code GET /v1/replay/runs}) agree on
 * the names through this class; what a file holds is docs/replay.md's. JDK only.
 */
public final class RunResults {
    /** The directory's name under the data directory. */
    public static final String DIR = "results";
    /** Files kept after each write: the newest by name. */
    public static final int KEEP = 100;
    /** A result file's name; temporary files and anything else in the directory do not match. */
    public static final Pattern NAME = Pattern.compile("\\d{8}T\\d{9}Z-[a-z0-9][a-z0-9-]{0,60}(-\\d+)?\\.json");
    private static final Pattern KIND = Pattern.compile("[a-z0-9][a-z0-9-]{0,60}");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);

    /** A run's file name: its start and its kind ({@code rebuild}, {@code drill-kill-api}, …). */
    public static String fileName(Instant startedAt, String kind) {
        if (!KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("a run's kind is lower-case letters, digits and dashes, not '" + kind + "'");
        }
        return STAMP.format(startedAt) + "-" + kind + ".json";
    }

    /**
     * Writes {@code json} as the run's file in {@code dir} (created if missing), never over another run's file (a
     * second run started in the same millisecond gets {@code -2}), then deletes all but the newest {@link #KEEP}.
     *
     * @return the file written
     */
    public static Path write(Path dir, Instant startedAt, String kind, String json) throws IOException {
        Files.createDirectories(dir);
        String name = fileName(startedAt, kind);
        Path tmp = Files.createTempFile(dir, ".run-", ".tmp");
        try {
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            Path target = dir.resolve(name);
            for (int n = 2; ; n++) {
                try {
                    moveWithoutReplacing(tmp, target);
                    break;
                } catch (FileAlreadyExistsException e) {
                    target = dir.resolve(name.substring(0, name.length() - ".json".length()) + "-" + n + ".json");
                }
            }
            prune(dir, KEEP);
            return target;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void moveWithoutReplacing(Path from, Path to) throws IOException {
        try {
            // On POSIX an atomic rename replaces silently: look first (two runs in one millisecond on one stack are
            // both this process's own sequence, so the look and the move do not race with another writer in practice).
            if (Files.exists(to)) {
                throw new FileAlreadyExistsException(to.toString());
            }
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to);
        }
    }

    /** Deletes all result files in {@code dir} but the newest {@code keep}; other files stay. */
    static void prune(Path dir, int keep) throws IOException {
        List<Path> all = newestFirst(dir);
        for (Path old : all.subList(Math.min(keep, all.size()), all.size())) {
            Files.deleteIfExists(old);
        }
    }

    /** The result files in {@code dir}, newest first; none when the directory does not exist. */
    public static List<Path> newestFirst(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (NAME.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        // The names start with the UTC start time; runs of one millisecond (rare) order by the rest of the name.
        files.sort(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed());
        return files;
    }

    private RunResults() {
    }
}
