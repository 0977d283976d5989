package io.streamhouse.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The layout number of a data directory: {@code up} writes it to {@code <data>/layout} and refuses, in one line, a
 * directory written by a version whose topics, state or logins this one cannot read.
 *
 * <p>A change that an existing data directory cannot be carried across raises {@link #CURRENT} and says in
 * {@link #CHANGES} what changed; docs/run.md ("Upgrading a data directory") lists the same changes. A directory that
 * holds data but no layout file was written before the file existed: it is taken as layout 1, whose one older break
 * (the Kafka logins) has a check of its own at the broker's start.
 */
final class DataLayout {

    /** The file in the data directory that holds the layout number. */
    static final String FILE = "layout";

    /** The layout this version writes and reads. */
    static final int CURRENT = 1;

    /** For each layout after the first, what it changed that an older directory cannot be carried across. */
    static final Map<Integer, String> CHANGES = Map.of();

    /** What {@code up --fresh} deletes before it writes this layout (besides other instances' state). */
    static final List<String> DATA = List.of("platform", "api-state", "ingest-cdc-state", "cep", "flink", "replay", "lake-query", "lake");

    /**
     * Why this version cannot start on {@code data}, in one line naming what to do, or empty when it can (an empty or
     * new directory, or one of this layout).
     */
    static Optional<String> refusal(Path data) {
        return refusal(data, CURRENT, CHANGES);
    }

    static Optional<String> refusal(Path data, int current, Map<Integer, String> changes) {
        Path file = data.resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty(); // new, or written before the file existed: layout 1
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return Optional.of("The data directory " + data + " has a layout file that cannot be read (" + e.getMessage()
                    + "): fix its permissions, or start with ./streamhouse up --fresh (deletes its topics and state).");
        }
        int layout;
        try {
            layout = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            layout = -1;
        }
        if (layout < 1) {
            return Optional.of("The data directory " + data + " has a layout file holding \"" + abbreviate(text)
                    + "\", not a layout number: start with ./streamhouse up --fresh (deletes its topics and state).");
        }
        if (layout > current) {
            return Optional.of("The data directory " + data + " was written by a newer Streamhouse (layout " + layout
                    + "; this one reads layout " + current + "): start it with that version, or start over with"
                    + " ./streamhouse up --fresh (deletes its topics and state).");
        }
        if (layout < current) {
            StringBuilder why = new StringBuilder();
            for (int k = layout + 1; k <= current; k++) {
                String change = changes.get(k);
                if (change != null) {
                    why.append(why.isEmpty() ? "" : "; ").append(change);
                }
            }
            return Optional.of("The data directory " + data + " was written by an older Streamhouse (layout " + layout
                    + "; this one needs layout " + current + (why.isEmpty() ? "" : ": " + why) + "): start with"
                    + " ./streamhouse up --fresh (deletes its topics and state), or keep using the older version on it"
                    + " (docs/run.md, \"Upgrading a data directory\").");
        }
        return Optional.empty();
    }

    /** Records that {@code data} is of this version's layout, atomically, so a start killed half-way leaves a whole file. */
    static void write(Path data) throws IOException {
        write(data, CURRENT);
    }

    static void write(Path data, int layout) throws IOException {
        Files.createDirectories(data);
        Path next = data.resolve(FILE + ".next");
        Files.writeString(next, layout + "\n", StandardCharsets.UTF_8);
        Files.move(next, data.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String abbreviate(String text) {
        String line = text.lines().findFirst().orElse("");
        return line.length() > 40 ? line.substring(0, 40) + "…" : line;
    }

    private DataLayout() {
    }
}
