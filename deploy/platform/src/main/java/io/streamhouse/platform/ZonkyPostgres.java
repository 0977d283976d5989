package io.streamhouse.platform;

import io.streamhouse.supervisor.LocalFiles;
import io.streamhouse.supervisor.LocalProcesses;
import io.streamhouse.supervisor.ShutdownHook;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * PostgreSQL from the zonky binaries shipped as a Maven artifact (no installation), started with logical decoding
 * on ({@code wal_level=logical}, replication slots and WAL senders available).
 *
 * <p>How the processes relate, and what that means for cleanup (observed on this project's Linux machines, running
 * as root; the pg_ctl behaviour is the same for other users, only the {@code unshare} wrapper differs):
 * <ul>
 *   <li>zonky runs {@code initdb} and {@code pg_ctl start}; pg_ctl starts the postmaster in a session of its own and
 *       exits, so the postmaster is <em>not</em> a child of this JVM (its parent becomes PID 1) and a terminal's
 *       Ctrl-C does not reach it. When this JVM runs as root, zonky wraps every binary in {@code unshare -U}
 *       (PostgreSQL refuses to run as root); the postmaster then runs as "nobody" inside a user namespace.</li>
 *   <li>Normal exit, Ctrl-C, SIGTERM: the JVM shutdown hook registered here calls {@link #close()}
 *       ({@code pg_ctl stop -m fast}). zonky's own hook is turned off so that the two do not race.</li>
 *   <li>{@code kill -9} of this JVM: no hook runs. Plain zonky then leaves the postmaster running indefinitely
 *       (checked: 2.2.2 with the 17.5.0 binaries, postmaster still serving after the JVM was gone). To close that
 *       gap a watchdog child ({@code /bin/sh}) is started before the server and blocks reading a pipe from this JVM.
 *       {@link #close()} writes "disarm" to it; if the pipe reaches end-of-file instead (this JVM died), the
 *       watchdog reads {@code postmaster.pid}, checks that this PID still runs a postgres on <em>this</em> data
 *       directory, and sends SIGINT (fast shutdown; SIGQUIT after 10 s). {@code PlatformOrphanIT} proves it. The
 *       watchdog ignores SIGINT, SIGTERM and SIGHUP so that a Ctrl-C or {@code kill -- -<pgid>} aimed at the
 *       application's process group cannot end it before the shutdown hook has stopped PostgreSQL. Remaining gaps: a
 *       {@code kill -9} of the watchdog itself, or of the JVM while {@code pg_ctl start} is still running (the
 *       watchdog finds no {@code postmaster.pid} yet and exits).</li>
 *   <li>After a stop, the postmaster stays a zombie until PID 1 reaps it (seconds here); {@link ProcessHandle}
 *       already reports it as not alive.</li>
 * </ul>
 *
 * <p>Other guarantees: {@code fresh} wipes the data directory first (tests); otherwise an initialised data
 * directory is reused with its contents (launcher). {@link #jdbcUrl()} names the requested database, created if
 * missing. zonky runs PostgreSQL with {@code fsync=off}: data survives a process crash but not a power loss. The
 * server log (initdb, pg_ctl, postmaster) is appended to the given log file.
 */
public final class ZonkyPostgres implements PostgresServer {

    public static final String SUPERUSER = "postgres";
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Logger LOG = LoggerFactory.getLogger(ZonkyPostgres.class);

    /**
     * @param dataDir     PostgreSQL data directory (created by initdb if it holds no cluster)
     * @param fresh       wipe {@code dataDir} before starting
     * @param port        TCP port on localhost; 0 picks a free one
     * @param binariesDir where zonky unpacks the binaries; null for {@code ${java.io.tmpdir}/embedded-pg}
     * @param logFile     where initdb, pg_ctl and the server write their output
     * @param database    database to create if missing and to point {@link #jdbcUrl()} at
     */
    public record Settings(Path dataDir, boolean fresh, int port, Path binariesDir, Path logFile, String database) {
        public Settings {
            Objects.requireNonNull(dataDir, "dataDir");
            Objects.requireNonNull(logFile, "logFile");
            dataDir = dataDir.toAbsolutePath().normalize();
            logFile = logFile.toAbsolutePath().normalize();
            binariesDir = binariesDir == null ? null : binariesDir.toAbsolutePath().normalize();
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            if (database == null || !DATABASE_NAME.matcher(database).matches()) {
                throw new IllegalArgumentException("database must be a plain lower-case identifier, was " + database);
            }
        }
    }

    /** One start at a time in this JVM, whichever class loader loaded this class (see {@link #start}). */
    private static final String START_LOCK = "io.streamhouse.platform.ZonkyPostgres.start";

    private final EmbeddedPostgres postgres;
    private final Settings settings;
    private final long postmasterPid;
    private final Process watchdog;
    private ShutdownHook shutdownHook;
    private boolean closed;

    private ZonkyPostgres(EmbeddedPostgres postgres, Settings settings, long postmasterPid, Process watchdog) {
        this.postgres = postgres;
        this.settings = settings;
        this.postmasterPid = postmasterPid;
        this.watchdog = watchdog;
    }

    public static ZonkyPostgres start(Settings settings) {
        Path dataDir = settings.dataDir();
        Process watchdog = null;
        EmbeddedPostgres postgres = null;
        try {
            if (settings.fresh()) {
                LocalFiles.deleteRecursively(dataDir);
            }
            Files.createDirectories(dataDir.getParent());
            Files.createDirectories(settings.logFile().getParent());
            int port = settings.port() == 0 ? freePort() : settings.port();

            watchdog = startWatchdog(dataDir);
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir.toFile())
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPort(port)
                    .setPGStartupWait(STARTUP_WAIT)
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(settings.logFile().toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(settings.logFile().toFile()))
                    .setServerConfig("wal_level", "logical")
                    .setServerConfig("max_wal_senders", "10")
                    .setServerConfig("max_replication_slots", "10")
                    .setServerConfig("max_connections", "100")
                    // The library defaults to synchronous_commit=off, which no system of record runs with: a commit
                    // would return before its WAL is flushed, and logical decoding only sends flushed WAL, so every
                    // change would wait for the WAL writer (wal_writer_delay, 200 ms) before Debezium could read it.
                    .setServerConfig("synchronous_commit", "on")
                    // TCP only: no socket files in /tmp that outlive a crash.
                    .setServerConfig("unix_socket_directories", "''");
            if (settings.binariesDir() != null) {
                Files.createDirectories(settings.binariesDir());
                builder.setOverrideWorkingDirectory(settings.binariesDir().toFile());
            }
            // The library unpacks its binaries under a file lock, and a file lock belongs to the whole JVM: two
            // platforms starting at once from different class loaders (a Quarkus test JVM) overlap on it. A string
            // literal is the same object in every class loader, so this serialises them.
            synchronized (START_LOCK) {
                postgres = builder.start();
            }

            long pid = readPostmasterPid(dataDir).orElseThrow(
                    () -> new IllegalStateException("postgres started but wrote no postmaster.pid in " + dataDir));
            ZonkyPostgres server = new ZonkyPostgres(postgres, settings, pid, watchdog);
            server.createDatabaseIfMissing();
            server.shutdownHook = ShutdownHook.register("streamhouse-postgres-stop-" + pid, server::close);
            return server;
        } catch (IOException | SQLException | RuntimeException e) {
            if (postgres != null) {
                closeQuietly(postgres);
            }
            if (watchdog != null) {
                disarm(watchdog);
            }
            throw new IllegalStateException("embedded PostgreSQL did not start in " + dataDir + ": " + e
                    + ". Last lines of " + settings.logFile() + ":\n" + LocalFiles.tail(settings.logFile(), 30), e);
        }
    }

    @Override
    public String jdbcUrl() {
        return jdbcUrl(settings.database());
    }

    /** URL of another database on this server, e.g. {@code postgres}. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + database;
    }

    @Override
    public String user() {
        return SUPERUSER;
    }

    /** Empty: the server trusts local connections (initdb -A trust). */
    @Override
    public String password() {
        return "";
    }

    public int port() {
        return postgres.getPort();
    }

    /** PID of the postmaster (not a child of this JVM: pg_ctl detaches it). */
    public long pid() {
        return postmasterPid;
    }

    public Path dataDir() {
        return settings.dataDir();
    }

    /**
     * Hands stopping over to an owner that stops several pieces in order (JVM shutdown hooks run concurrently, so
     * this one would race the owner's). If the JVM dies without closing, the child still stops on its own.
     */
    public void releaseShutdownHook() {
        shutdownHook.release();
    }

    /** Stops the server ({@code pg_ctl stop -m fast}, then SIGKILL if still alive), then disarms the watchdog. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdownHook.releaseUnlessRunning();
        closeQuietly(postgres);
        Optional<ProcessHandle> postmaster = ProcessHandle.of(postmasterPid)
                .filter(h -> h.info().commandLine().map(c -> c.contains(settings.dataDir().toString())).orElse(false));
        if (postmaster.isPresent() && !LocalProcesses.waitFor(postmaster.get(), STOP_WAIT)) {
            LOG.warn("postmaster {} still running after pg_ctl stop; killing it", postmasterPid);
            postmaster.get().destroyForcibly();
            LocalProcesses.waitFor(postmaster.get(), STOP_WAIT);
        }
        disarm(watchdog);
        LOG.info("PostgreSQL pid {} stopped", postmasterPid);
    }

    @Override
    public String toString() {
        return "ZonkyPostgres[pid=" + postmasterPid + ", " + jdbcUrl() + "]";
    }

    private void createDatabaseIfMissing() throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl("postgres"), SUPERUSER, "");
             PreparedStatement exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, settings.database());
            try (ResultSet rs = exists.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
            try (Statement create = c.createStatement()) {
                // Name validated by Settings: a plain identifier, safe to inline.
                create.execute("CREATE DATABASE " + settings.database());
            }
        }
    }

    static Optional<Long> readPostmasterPid(Path dataDir) throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
        return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
    }

    /**
     * The watchdog: {@code sh} blocking on a pipe from this JVM. "disarm" ends it quietly; end-of-file (this JVM is
     * gone) makes it stop the postmaster of {@code dataDir}, if one runs.
     */
    private static Process startWatchdog(Path dataDir) throws IOException {
        String script = String.join("\n",
                "trap '' INT TERM HUP",
                "while IFS= read -r line; do",
                "  [ \"$line\" = disarm ] && exit 0",
                "done",
                "pidfile=\"$1/postmaster.pid\"",
                "[ -f \"$pidfile\" ] || exit 0",
                "pid=$(head -n 1 \"$pidfile\")",
                "case \"$pid\" in ''|*[!0-9]*) exit 0;; esac",
                // Only a postgres started on this very data directory: a stale pid file must not hit anyone else.
                "tr '\\000' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -qF -- \"-D $1\" || exit 0",
                "echo \"$(date -u +%FT%TZ) [streamhouse-postgres-watchdog] parent gone; fast shutdown of postmaster $pid\"",
                "kill -INT \"$pid\"",
                "i=0",
                "while kill -0 \"$pid\" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done",
                "kill -0 \"$pid\" 2>/dev/null && kill -QUIT \"$pid\"",
                "exit 0");
        return new ProcessBuilder("/bin/sh", "-c", script, "streamhouse-postgres-watchdog", dataDir.toString())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDir.resolveSibling("postgres-watchdog.log").toFile()))
                .redirectErrorStream(true)
                .start();
    }

    private static void disarm(Process watchdog) {
        try (OutputStream in = watchdog.getOutputStream()) {
            in.write("disarm\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            LOG.debug("watchdog already gone", e);
        }
        if (!LocalProcesses.waitFor(watchdog.toHandle(), Duration.ofSeconds(5))) {
            watchdog.destroyForcibly();
        }
    }

    private static void closeQuietly(EmbeddedPostgres postgres) {
        try {
            postgres.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("pg_ctl stop failed", e);
        }
    }


    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
