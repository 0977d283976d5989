package io.streamhouse.control;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * A command-line tool's terminal carries the tool's own lines only. Everything else written to standard error (the
 * libraries' slf4j-simple lines, {@code java.util.logging}'s console handler, stack traces a library prints) goes to
 * {@code <data>/logs/<cli>.log}, appended, and {@link #summary()} is the one line that says how many warnings and
 * errors went there. The tool prints its own error lines to {@link #terminal()}. With {@code --verbose} nothing moves.
 *
 * <p>Start it first thing in {@code main}, before any library is touched: slf4j-simple and {@code java.util.logging}
 * look up standard error when they start.
 */
public final class CliLog {
    /** The option every tool accepts to keep library logging on the terminal. */
    public static final String VERBOSE = "--verbose";

    /** Standard error as it was before the first move: the terminal. */
    private static volatile PrintStream terminalError = System.err;

    private final PrintStream terminal;
    private final Path file;
    private final Counter counter;

    private CliLog(PrintStream terminal, Path file, Counter counter) {
        this.terminal = terminal;
        this.file = file;
        this.counter = counter;
    }

    /**
     * Moves standard error to {@code <data>/logs/<cli>.log}, where {@code data} is the value of {@code --data} in
     * {@code args} or {@code defaultData}, unless {@code args} holds {@value #VERBOSE}. If the file cannot be opened,
     * says so on the terminal and leaves standard error as it is.
     */
    public static CliLog start(String cli, String[] args, Path defaultData) {
        return start(cli, dataDir(args, defaultData), Arrays.asList(args).contains(VERBOSE));
    }

    /** Moves standard error to {@code <data>/logs/<cli>.log} unless {@code verbose}. */
    public static CliLog start(String cli, Path data, boolean verbose) {
        PrintStream terminal = terminalError();
        if (verbose) {
            return new CliLog(terminal, null, null);
        }
        Path file = data.resolve("logs").resolve(cli + ".log");
        try {
            Files.createDirectories(file.getParent());
            Counter counter = new Counter(new FileOutputStream(file.toFile(), true));
            terminalError = terminal;
            System.setErr(new MovedStream(counter));
            consoleHandlersToTheNewStandardError();
            return new CliLog(terminal, file, counter);
        } catch (IOException | RuntimeException e) {
            terminal.println(cli + ": cannot write " + file + " (" + e.getMessage() + "): library logging stays on the terminal");
            return new CliLog(terminal, null, null);
        }
    }

    /**
     * {@code java.util.logging}'s console handler holds the standard error it found when it was made: one made before
     * the move is replaced by one on the moved stream, at the same level.
     */
    private static void consoleHandlersToTheNewStandardError() {
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler handler : root.getHandlers()) {
            if (handler instanceof ConsoleHandler old) {
                root.removeHandler(old);
                ConsoleHandler moved = new ConsoleHandler();
                moved.setLevel(old.getLevel());
                moved.setFormatter(old.getFormatter());
                root.addHandler(moved);
            }
        }
    }

    /** How a tool is run: its arguments (without {@value #VERBOSE}) and the terminal for its error lines → exit code. */
    @FunctionalInterface
    public interface Tool {
        int run(String[] args, PrintStream terminal);
    }

    /**
     * A tool's whole {@code main} but the exit: library logging moved to {@code <data>/logs/<cli>.log} (unless
     * {@value #VERBOSE}), the tool run, the summary line printed; returns the tool's exit code.
     */
    public static int run(String cli, String[] args, Tool tool) {
        CliLog log = start(cli, args, Path.of(".streamhouse"));
        int code = tool.run(withoutVerbose(args), log.terminal());
        log.printSummary();
        return code;
    }

    /** {@code args} without {@value #VERBOSE}, for a parser that does not know it. */
    public static String[] withoutVerbose(String[] args) {
        return Arrays.stream(args).filter(a -> !a.equals(VERBOSE)).toArray(String[]::new);
    }

    /** The value of {@code --data DIR} or {@code --data=DIR} in {@code args}, else {@code defaultData}. */
    static Path dataDir(String[] args, Path defaultData) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--data") && i + 1 < args.length) {
                return Path.of(args[i + 1]);
            }
            if (args[i].startsWith("--data=")) {
                return Path.of(args[i].substring("--data=".length()));
            }
        }
        return defaultData;
    }

    /** The terminal's standard error, for a tool's own lines, wherever library logging went. */
    public static PrintStream terminalError() {
        PrintStream current = System.err;
        return current instanceof MovedStream ? terminalError : current;
    }

    /** The terminal's standard error, for the tool's own lines. */
    public PrintStream terminal() {
        return terminal;
    }

    /** Where library logging goes; empty with {@code --verbose}, or when the file could not be opened. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    public long warnings() {
        return counter == null ? 0 : counter.warnings.get();
    }

    public long errors() {
        return counter == null ? 0 : counter.errors.get();
    }

    /**
     * "2,812 library warnings and 1 error in .streamhouse/logs/replay.log (--verbose shows them here)", or empty when
     * there were none or nothing was moved.
     */
    public Optional<String> summary() {
        if (file == null || warnings() + errors() == 0) {
            return Optional.empty();
        }
        String what = warnings() > 0 && errors() > 0 ? count(warnings(), "warning") + " and " + count(errors(), "error")
                : warnings() > 0 ? count(warnings(), "warning") : count(errors(), "error");
        return Optional.of(String.format("library %s in %s (%s shows them here)", what, file, VERBOSE));
    }

    private static String count(long n, String noun) {
        return String.format("%,d %s%s", n, noun, n == 1 ? "" : "s");
    }

    /** Prints {@link #summary()} to the terminal, if there is one. */
    public void printSummary() {
        summary().ifPresent(terminal::println);
    }

    /** Standard error once moved to the log file. */
    private static final class MovedStream extends PrintStream {
        MovedStream(Counter counter) {
            super(counter, true, StandardCharsets.UTF_8);
        }
    }

    /**
     * Writes through to the file, and counts the lines that are warnings or errors in the formats that reach it:
     * slf4j-simple ({@code [thread] WARN logger - …}, with or without a time before it) and
     * {@code java.util.logging}'s ({@code WARNING: …}, {@code SEVERE: …}).
     */
    private static final class Counter extends OutputStream {
        private static final int KEPT = 256;
        private final OutputStream out;
        private final byte[] line = new byte[KEPT];
        private int length;
        final AtomicLong warnings = new AtomicLong(), errors = new AtomicLong();

        Counter(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            out.write(b);
            see((byte) b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            for (int i = off; i < off + len; i++) {
                see(b[i]);
            }
        }

        private void see(byte b) {
            if (b == '\n') {
                classify(new String(line, 0, length, StandardCharsets.UTF_8));
                length = 0;
            } else if (length < KEPT) {
                line[length++] = b;
            }
        }

        private void classify(String text) {
            if (text.startsWith("WARNING: ") || text.contains("] WARN ")) {
                warnings.incrementAndGet();
            } else if (text.startsWith("SEVERE: ") || text.contains("] ERROR ")) {
                errors.incrementAndGet();
            }
        }

        @Override
        public synchronized void flush() throws IOException {
            out.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            out.close();
        }
    }
}
