package io.streamhouse.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Requests to a running launcher through files in {@code <data>/control/}: the client renames a
 * {@code <id>.request} file into place ({@code <action> <component>}), the launcher runs it and renames a
 * {@code <id>.response} into place ({@code ok <message>} or {@code error <message>}). Local by construction: only
 * who may write the data directory (the directory is created owner-only) can ask, and no port is opened.
 * Requests are handled one at a time, in no guaranteed order.
 */
public final class ControlChannel implements AutoCloseable {
    public static final String DIR = "control";
    private static final Duration POLL = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(ControlChannel.class.getName());

    /** {@code action} on {@code component}, e.g. {@code kill api}. */
    public record Request(String action, String component) {
    }

    /** The launcher's answer. */
    public record Response(boolean ok, String message) {
    }

    private final Thread thread;
    private volatile boolean closed;

    private ControlChannel(Path dir, Function<Request, String> handler) {
        this.thread = new Thread(() -> serveLoop(dir, handler), "streamhouse-control");
        this.thread.setDaemon(true);
    }

    /**
     * Serves requests in {@code dir} until closed. {@code handler} returns the success message or throws with the
     * error message (an {@link IllegalArgumentException} for a bad request).
     */
    public static ControlChannel serve(Path dir, Function<Request, String> handler) {
        createPrivate(dir);
        try (DirectoryStream<Path> stale = Files.newDirectoryStream(dir)) {
            for (Path p : stale) {
                Files.deleteIfExists(p); // requests and answers of a previous launcher are nobody's any more
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir, e);
        }
        ControlChannel channel = new ControlChannel(dir, handler);
        channel.thread.start();
        return channel;
    }

    private void serveLoop(Path dir, Function<Request, String> handler) {
        while (!closed) {
            try (DirectoryStream<Path> requests = Files.newDirectoryStream(dir, "*.request")) {
                for (Path request : requests) {
                    handle(request, handler);
                }
            } catch (IOException | UncheckedIOException e) {
                LOG.log(Level.WARNING, "control directory " + dir + " unreadable", e);
            }
            try {
                // A poll: the request comes from another process, and WatchService on Linux polls too where inotify is absent.
                TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void handle(Path request, Function<Request, String> handler) throws IOException {
        String id = request.getFileName().toString().replaceFirst("\\.request$", "");
        String text;
        try {
            text = Files.readString(request, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException gone) {
            return;
        }
        Files.deleteIfExists(request);
        String[] words = text.split("\\s+", 2);
        String answer;
        try {
            if (words.length != 2) {
                throw new IllegalArgumentException("a request is '<action> <component>', got '" + text + "'");
            }
            answer = "ok " + handler.apply(new Request(words[0], words[1]));
        } catch (RuntimeException e) {
            answer = "error " + e.getMessage();
        }
        writeAtomically(request.resolveSibling(id + ".response"), answer);
    }

    /** Sends a request to the launcher serving {@code dir} and waits up to {@code timeout} for its answer. */
    public static Response send(Path dir, Request request, Duration timeout) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no control directory " + dir + ": is the launcher running with this data directory?");
        }
        String id = UUID.randomUUID().toString();
        Path response = dir.resolve(id + ".response");
        writeAtomically(dir.resolve(id + ".request"), request.action() + " " + request.component());
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            try {
                String answer = Files.readString(response, StandardCharsets.UTF_8).strip();
                Files.deleteIfExists(response);
                return answer.startsWith("ok ") ? new Response(true, answer.substring(3)) : new Response(false, answer.replaceFirst("^error ", ""));
            } catch (NoSuchFileException notYet) {
                // keep waiting
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + response, e);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL.toMillis()); // bounded by the deadline above
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the launcher", e);
            }
        }
        try {
            Files.deleteIfExists(dir.resolve(id + ".request"));
        } catch (IOException ignored) {
            // the launcher may have taken it meanwhile
        }
        throw new IllegalStateException("the launcher did not answer '" + request.action() + " " + request.component()
                + "' within " + timeout.toSeconds() + " s");
    }

    private static void writeAtomically(Path target, String content) {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, content + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    private static void createPrivate(Path dir) {
        try {
            Files.createDirectories(dir);
            try {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException notPosix) {
                // the data directory's own permissions apply
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
