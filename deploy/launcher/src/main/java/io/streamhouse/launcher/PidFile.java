package io.streamhouse.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code .streamhouse/launcher.pid}: which process runs this installation, so {@code down} stops that one only. A
 * recorded pid counts only while that process is alive and its command line shows it is the launcher (after a
 * {@code kill -9} the pid may be a zombie with no command line, or reused by another program).
 */
final class PidFile {
    private static final String NAME = "launcher.pid";

    static Optional<Long> running(Path data) {
        Path file = data.resolve(NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            long pid = Long.parseLong(Files.readString(file).trim());
            return ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().commandLine().map(c -> c.contains(Launcher.class.getName())).orElse(false))
                    .map(ProcessHandle::pid);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    static void write(Path data, long pid) {
        try {
            Files.writeString(data.resolve(NAME), Long.toString(pid));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path data) {
        try {
            Files.deleteIfExists(data.resolve(NAME));
        } catch (IOException ignored) {
            // nothing to clean
        }
    }

    private PidFile() {
    }
}
