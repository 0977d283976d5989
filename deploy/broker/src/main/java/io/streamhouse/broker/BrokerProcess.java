package io.streamhouse.broker;

import io.streamhouse.supervisor.RecordedClasspath;
import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.LocalFiles;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Kafka broker running in a child JVM ({@link BrokerMain}), seen from the parent: the broker's {@link ChildSpec}
 * on top of the {@link Supervisor}. JDK-only on purpose: this class is loaded by applications whose classpath has no
 * Kafka server jar (they depend on this module with an exclusion of {@code *:*}).
 *
 * <p>Assumptions: the build wrote the broker's runtime classpath into the resource {@value #CLASSPATH_RESOURCE}
 * (absolute paths, normally into {@code ~/.m2}), and those files still exist; the code of this module is found where
 * this class was loaded from (a jar or {@code target/classes}). The child runs on the parent's own {@code java}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #start} returns only once the child printed its ready line, i.e. an admin request through the client
 *       listener succeeded; otherwise, after {@link #START_TIMEOUT} or when the child exits early, the child is
 *       killed and the exception carries the last lines of its log.</li>
 *   <li>The port is fixed before the first start (a free one if the options say 0), so a restart by the supervisor
 *       comes back on the same bootstrap address; only the first start wipes the data when asked to.</li>
 *   <li>No orphan: the child exits when its stdin reaches end-of-file (see {@link io.streamhouse.supervisor.ChildProcess}).
 *       A JVM shutdown hook calls {@link #close()} on a normal exit, SIGTERM or Ctrl-C. Note: a JVM started in the
 *       background ({@code &}) by a non-interactive shell inherits an ignored SIGINT and has no Ctrl-C hook at all;
 *       the stdin guard still covers it.</li>
 *   <li>{@link #close()} is idempotent and thread-safe: stdin closed, up to {@link #STOP_TIMEOUT} for a clean stop,
 *       then SIGTERM, then SIGKILL; descendants of the child (there are none today) get the same treatment.</li>
 * </ul>
 */
public final class BrokerProcess implements SupervisedComponent {

    /** Resource holding the broker's runtime classpath, written by maven-dependency-plugin at build time. */
    public static final String CLASSPATH_RESOURCE = "streamhouse-broker.classpath";
    /** Component name under the supervisor. */
    public static final String COMPONENT = "broker";
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /**
     * A cluster node is ready only once a quorum of its peers runs too (its broker waits for the metadata log), and
     * the nodes start together on the same cores: each gets longer than a single broker.
     */
    public static final Duration CLUSTER_NODE_START_TIMEOUT = Duration.ofSeconds(120);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final System.Logger LOG = System.getLogger(BrokerProcess.class.getName());

    private final SupervisedChild child;

    private BrokerProcess(SupervisedChild child) {
        this.child = child;
    }

    /** Starts a broker child JVM that is not restarted if it dies, and waits until it accepts requests. */
    public static BrokerProcess start(BrokerOptions options) {
        return start(options, Supervisor.unsupervised());
    }

    /**
     * Starts a broker child JVM under {@code supervisor} (component {@link BrokerOptions#componentName()}, {@value #COMPONENT}
     * for a single broker) and waits until it accepts requests. A cluster node returns only once a quorum of the
     * cluster's nodes runs: {@link BrokerCluster} starts them together.
     */
    public static BrokerProcess start(BrokerOptions options, Supervisor supervisor) {
        Path dataDir = options.dataDir();
        try {
            if (options.wipeOnStart()) {
                LocalFiles.deleteRecursively(dataDir);
            }
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare broker data directory " + dataDir, e);
        }
        if (options.secured()) {
            // The child would refuse it too, but its reason would reach the user only as the tail of its log.
            BrokerStorage.refuseStorageWithoutCredentials(dataDir, dataDir.resolve(BrokerMain.KRAFT_DIR));
        }
        int port = options.port() == 0 ? freePort() : options.port();
        ChildSpec spec = new ChildSpec(options.componentName(), command(options, port), Map.of(), dataDir,
                dataDir.resolve(BrokerMain.LOG_FILE), new Readiness.StdoutLine(BrokerMain.READY_PREFIX),
                options.cluster() == null ? START_TIMEOUT : CLUSTER_NODE_START_TIMEOUT, STOP_TIMEOUT);
        BrokerProcess broker = new BrokerProcess(supervisor.start(spec));
        LOG.log(Level.INFO, "Kafka broker {0} ready at {1} in {2} ms (pid {3}, data {4})", options.componentName(), broker.bootstrapServers(),
                Long.toString(broker.startDuration().toMillis()), Long.toString(broker.pid()), dataDir);
        return broker;
    }

    /** {@code host:port} for {@code bootstrap.servers}; the same after a restart. */
    public String bootstrapServers() {
        return child.endpoint();
    }

    @Override
    public SupervisedChild supervised() {
        return child;
    }

    @Override
    public String toString() {
        return "BrokerProcess[pid=" + pid() + ", bootstrap=" + bootstrapServers() + "]";
    }

    static List<String> command(BrokerOptions options, int port) {
        List<String> command = new ArrayList<>();
        command.add(ChildSpec.javaBin());
        command.add("-Xmx" + options.maxHeap());
        if (!options.fullJit()) {
            command.add("-XX:TieredStopAtLevel=1");
        }
        command.add("-XX:+UseSerialGC");
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("-XX:-UsePerfData");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(childClasspath());
        command.add(BrokerMain.class.getName());
        command.add("--data-dir");
        command.add(options.dataDir().toString());
        command.add("--port");
        command.add(Integer.toString(port));
        if (options.secured()) {
            command.add("--credentials-dir");
            command.add(options.credentialsDir().toString());
        }
        ClusterMembership cluster = options.cluster();
        if (cluster != null) {
            command.add("--node-id");
            command.add(Integer.toString(cluster.nodeId()));
            command.add("--cluster-id");
            command.add(cluster.clusterId());
            command.add("--quorum-voters");
            command.add(cluster.quorumVoters());
        }
        return command;
    }

    /**
     * The module's own code plus the dependency classpath recorded at build time. The code location is taken from
     * this class rather than {@code BrokerMain}, whose constant pool names Kafka classes the parent does not have.
     */
    static String childClasspath() {
        return RecordedClasspath.of(BrokerProcess.class, CLASSPATH_RESOURCE, "deploy/broker");
    }

    /** A free port on 127.0.0.1 now, so that every restart binds the same one (another process may take it between). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
