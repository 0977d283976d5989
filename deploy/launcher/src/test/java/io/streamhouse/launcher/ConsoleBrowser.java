package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The console's browser test ({@code src/test/console/console-browser.mjs}) run from LauncherIT: Node 20+ with
 * playwright-core (installed by {@code npm ci} into {@code target/console-browser}, never the source tree) driving
 * Debian's Chromium headless. Without Node or Chromium the test is skipped on a developer machine and fails in CI
 * (env CI set), where {@code .ci/run} installs Chromium.
 */
final class ConsoleBrowser {

    static final Path CHROMIUM = Path.of(System.getProperty("console.chromium", "/usr/bin/chromium"));
    private static final Duration NPM_DEADLINE = Duration.ofMinutes(5);
    private static final Duration RUN_DEADLINE = Duration.ofMinutes(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Why the browser test cannot run here, if it cannot; fails instead of answering in CI. */
    static Optional<String> missing() throws IOException, InterruptedException {
        String why = null;
        Optional<String> node = run(List.of("node", "--version"), Path.of("."));
        if (node.isEmpty() || !node.get().trim().matches("v(\\d+)\\..*") || major(node.get()) < 20) {
            why = "Node 20+ (node and npm on PATH) is needed for the console's browser test";
        } else if (!Files.isExecutable(CHROMIUM)) {
            why = "Chromium is needed at " + CHROMIUM + " for the console's browser test (apt-get install chromium)";
        }
        if (why != null && isCi()) {
            fail(why + ", and CI must have it (.ci/run installs it)");
        }
        return Optional.ofNullable(why == null ? null : why + "; skipped outside CI");
    }

    /**
     * Runs the browser test against the stack at {@code api}: its RESULT lines, in order; each NEED line is answered
     * with what {@code provide} returns for it (an id it wrote to the log).
     */
    static List<JsonNode> run(String api, Path tokens, Path screenshots, Function<String, String> provide) throws Exception {
        Path work = Path.of("target", "console-browser").toAbsolutePath();
        Files.createDirectories(work);
        Files.createDirectories(screenshots);
        Path sources = Path.of("src", "test", "console");
        for (String file : List.of("package.json", "package-lock.json", "console-browser.mjs")) {
            Files.copy(sources.resolve(file), work.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Path stamp = work.resolve(".installed-package-lock.json");
        byte[] lock = Files.readAllBytes(work.resolve("package-lock.json"));
        if (!(Files.exists(stamp) && Files.isDirectory(work.resolve("node_modules"))
                && java.util.Arrays.equals(Files.readAllBytes(stamp), lock))) {
            // --ignore-scripts: playwright-core needs none (the browser is Debian's, not a download).
            if (run(List.of("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"), work).isEmpty()) {
                fail("npm ci failed in " + work);
            }
            Files.write(stamp, lock);
        }
        Process node = new ProcessBuilder("node", "console-browser.mjs", "--api", api, "--tokens", tokens.toString(),
                "--out", screenshots.toAbsolutePath().toString(), "--chromium", CHROMIUM.toString())
                .directory(work.toFile()).redirectError(work.resolve("console-browser.err").toFile()).start();
        List<JsonNode> results = new ArrayList<>();
        StringBuilder transcript = new StringBuilder();
        Thread watchdog = new Thread(() -> {
            try {
                if (!node.waitFor(RUN_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    node.descendants().forEach(ProcessHandle::destroyForcibly);
                    node.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "console-browser-deadline");
        watchdog.setDaemon(true);
        watchdog.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new java.io.OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8)) {
            String line;
            while ((line = out.readLine()) != null) {
                transcript.append(line).append('\n');
                if (line.startsWith("RESULT ")) {
                    results.add(JSON.readTree(line.substring("RESULT ".length())));
                } else if (line.startsWith("NEED ")) {
                    in.write("SENT " + provide.apply(line.substring("NEED ".length()).trim()) + "\n");
                    in.flush();
                }
            }
        } finally {
            if (node.isAlive()) {
                node.descendants().forEach(ProcessHandle::destroyForcibly);
                node.destroyForcibly();
            }
            node.waitFor(10, TimeUnit.SECONDS);
        }
        if (node.exitValue() != 0) {
            fail("the console's browser test exited " + node.exitValue() + "; its output:\n" + transcript + "\nits errors: "
                    + Files.readString(work.resolve("console-browser.err")));
        }
        return results;
    }

    private static Optional<String> run(List<String> command, Path dir) throws IOException, InterruptedException {
        Path log = Files.createTempFile("console-browser-" + command.get(0), ".log");
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException cannotStart) {
            return Optional.empty();
        }
        try {
            if (!process.waitFor(NPM_DEADLINE.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
                System.err.println(String.join(" ", command) + " failed; its output:\n" + Files.readString(log));
                return Optional.empty();
            }
            return Optional.of(Files.readString(log));
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    private static boolean isCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
    }

    private static int major(String version) {
        return Integer.parseInt(version.trim().substring(1).split("\\.")[0]);
    }

    private ConsoleBrowser() {
    }
}
