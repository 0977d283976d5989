package io.streamhouse.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code <data>/status.json}: the launcher's view of its children, rewritten after every change. Written to a
 * temporary file and renamed over the old one, so a reader sees the previous or the next state, never a torn one.
 * JDK only, so {@link #read} understands exactly what {@link #write} writes (one component per line), not any JSON.
 */
public final class StatusFile {
    public static final String NAME = "status.json";

    /**
     * What the file holds: each component's process, what looks inside them found ({@link HealthCheck}), and named
     * details ({@code lag}, {@code freshness}, ...): each a JSON value on one line, written as given and read back as
     * text, so this JDK-only class carries structured health without parsing it.
     */
    public record Snapshot(long launcherPid, Instant updatedAt, List<ChildStatus> components, List<HealthCheck> checks,
                           Map<String, String> details) {
        public Snapshot {
            components = List.copyOf(components);
            checks = List.copyOf(checks);
            details = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
            for (Map.Entry<String, String> d : details.entrySet()) {
                if (!d.getKey().matches("\\w+") || d.getKey().equals("checks") || d.getKey().equals("components")
                        || !d.getValue().matches("[\\[{].*[\\]}]") || d.getValue().contains("\n")) {
                    throw new IllegalArgumentException("a detail is a word and a JSON object or array on one line: " + d.getKey());
                }
            }
        }

        public Snapshot(long launcherPid, Instant updatedAt, List<ChildStatus> components, List<HealthCheck> checks) {
            this(launcherPid, updatedAt, components, checks, Map.of());
        }

        public Snapshot(long launcherPid, Instant updatedAt, List<ChildStatus> components) {
            this(launcherPid, updatedAt, components, List.of());
        }
    }

    public static void write(Path file, Snapshot snapshot) {
        StringBuilder json = new StringBuilder();
        json.append("{\"launcherPid\": ").append(snapshot.launcherPid())
                .append(", \"updatedAt\": \"").append(snapshot.updatedAt()).append("\", \"components\": [\n");
        for (int i = 0; i < snapshot.components().size(); i++) {
            ChildStatus c = snapshot.components().get(i);
            json.append("  {\"name\": \"").append(escape(c.name())).append("\", \"state\": \"").append(c.state().label())
                    .append("\", \"pid\": ").append(c.pid()).append(", \"restarts\": ").append(c.restarts())
                    .append(", \"endpoint\": \"").append(escape(c.endpoint())).append("\", \"since\": \"").append(c.since()).append('"');
            if (c.lastExit().isPresent()) {
                ExitInfo exit = c.lastExit().get();
                json.append(", \"lastExit\": {\"code\": ").append(exit.code()).append(", \"at\": \"").append(exit.at())
                        .append("\", \"description\": \"").append(escape(exit.describe())).append("\"}");
            }
            json.append('}').append(i + 1 < snapshot.components().size() ? "," : "").append('\n');
        }
        json.append("],\n\"checks\": [\n");
        for (int i = 0; i < snapshot.checks().size(); i++) {
            HealthCheck c = snapshot.checks().get(i);
            json.append("  {\"check\": \"").append(escape(c.name())).append("\", \"component\": \"").append(escape(c.component()))
                    .append("\", \"verdict\": \"").append(c.verdict().label()).append("\", \"line\": \"").append(escape(c.line()))
                    .append("\"}").append(i + 1 < snapshot.checks().size() ? "," : "").append('\n');
        }
        json.append(']');
        snapshot.details().forEach((name, value) -> json.append(",\n\"").append(name).append("\": ").append(value));
        json.append("\n}\n");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static final Pattern HEADER = Pattern.compile("\"launcherPid\": (\\d+), \"updatedAt\": \"([^\"]+)\"");
    private static final Pattern COMPONENT = Pattern.compile("\\{\"name\": \"((?:[^\"\\\\]|\\\\.)*)\", \"state\": \"(\\w+)\", "
            + "\"pid\": (\\d+), \"restarts\": (\\d+), \"endpoint\": \"((?:[^\"\\\\]|\\\\.)*)\", \"since\": \"([^\"]+)\""
            + "(?:, \"lastExit\": \\{\"code\": (-?\\d+), \"at\": \"([^\"]+)\")?");

    private static final Pattern CHECK = Pattern.compile("\\{\"check\": \"((?:[^\"\\\\]|\\\\.)*)\", \"component\": \"((?:[^\"\\\\]|\\\\.)*)\", "
            + "\"verdict\": \"(\\w+)\", \"line\": \"((?:[^\"\\\\]|\\\\.)*)\"\\}");

    private static final Pattern DETAIL = Pattern.compile("^\"(\\w+)\": ([\\[{].*[\\]}]),?$");

    /** The snapshot in {@code file}, or empty if there is none (never started, or stopped and removed). */
    public static Optional<Snapshot> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        Matcher header = HEADER.matcher(lines.get(0));
        if (!header.find()) {
            throw new IllegalStateException(file + " is not a status file written by the launcher");
        }
        List<ChildStatus> components = new ArrayList<>();
        List<HealthCheck> checks = new ArrayList<>();
        Map<String, String> details = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            Matcher detail = DETAIL.matcher(line);
            if (detail.find()) {
                details.put(detail.group(1), detail.group(2));
                continue;
            }
            Matcher check = CHECK.matcher(line);
            if (check.find()) {
                checks.add(new HealthCheck(unescape(check.group(1)), unescape(check.group(2)),
                        HealthCheck.Verdict.valueOf(check.group(3).toUpperCase(java.util.Locale.ROOT)), unescape(check.group(4))));
                continue;
            }
            Matcher m = COMPONENT.matcher(line);
            if (m.find()) {
                Optional<ExitInfo> exit = m.group(7) == null ? Optional.empty()
                        : Optional.of(new ExitInfo(Integer.parseInt(m.group(7)), Instant.parse(m.group(8))));
                components.add(new ChildStatus(unescape(m.group(1)), ChildState.valueOf(m.group(2).toUpperCase(java.util.Locale.ROOT)),
                        Long.parseLong(m.group(3)), Integer.parseInt(m.group(4)), exit, unescape(m.group(5)), Instant.parse(m.group(6))));
            }
        }
        return Optional.of(new Snapshot(Long.parseLong(header.group(1)), Instant.parse(header.group(2)), components, checks, details));
    }

    private static String escape(String s) {
        StringBuilder out = new StringBuilder();
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(ch < 0x20 ? ' ' : ch);
            }
        }
        return out.toString();
    }

    private static String unescape(String s) {
        return s.replace("\\n", "\n").replace("\\\"", "\"").replace("\\\\", "\\");
    }

    private StatusFile() {
    }
}
