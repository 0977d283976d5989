package io.streamhouse.broker;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaCredentials;
import io.streamhouse.security.kafka.KafkaPrincipal;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Entry point of the broker child JVM: one Kafka node in KRaft combined mode (broker + controller) on 127.0.0.1,
 * alone (node id 1) or one node of a cluster. Only {@link BrokerProcess} is meant to start it.
 *
 * <p>Arguments: {@code --data-dir <dir> --port <port> [--credentials-dir <dir>] [--node-id <id> --cluster-id <id>
 * --quorum-voters <id@host:port,…>]}; port 0 picks a free port just before the start (another
 * process may grab it in between: the start then fails and says so in the log). A single node's controller listener
 * gets a fresh free port: the quorum is static ({@code controller.quorum.voters}), so nothing on disk remembers it. A
 * cluster node takes its controller port from the voters, which every node is given alike.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Storage under {@code <data-dir>/kraft} is formatted with a random cluster id only when it holds no
 *       {@code meta.properties}; otherwise topics and records of the previous run are served again.</li>
 *   <li>Storage formatted by a cluster node carries the cluster id it was given, so all nodes agree on it.</li>
 *   <li>Durability follows the node count: one node forces replication factor 1 and min ISR 1 on every internal topic
 *       (offsets, transactions, share state) and as the default, so consumer groups and transactions work; a cluster
 *       of three or more uses 3 and 2 ({@link ClusterMembership#replicationFactor}). Topics are never created
 *       implicitly ({@code auto.create.topics.enable=false}): the topic catalog creates them.</li>
 *   <li>With {@code --credentials-dir}: the client listener takes SASL/SCRAM-SHA-512 only and the controller listener
 *       SASL/PLAIN (SCRAM between controller and broker is a known weak spot, KAFKA-15513); the StandardAuthorizer denies
 *       whatever no ACL allows ({@code allow.everyone.if.no.acl.found=false}); {@code broker}, {@code controller} and
 *       {@code platform} are super users (the broker writes transaction markers; the platform applies the ACLs). Every
 *       {@code KafkaPrincipal}'s password is created in that directory when missing and registered as a SCRAM
 *       credential: at format time ({@code --add-scram}), or after the start for a user that has none yet. A storage
 *       formatted without credentials is refused with a message that says how to start again.</li>
 *   <li>Exactly one line goes to stdout: {@value #READY_PREFIX}{@code <bootstrap>}, printed after an admin client in
 *       this JVM got an answer to {@code describeCluster} through the client listener. Everything else (Kafka's
 *       logs at WARN, this class' notes, stray prints) goes to {@code <data-dir>/broker.log}.</li>
 *   <li>The JVM ends when stdin reaches end-of-file, which is what happens when the parent closes the pipe or dies
 *       (even by {@code kill -9}): the server is shut down cleanly (flushes, clean-shutdown marker) and the JVM
 *       halts; if that takes longer than {@link #SHUTDOWN_GRACE} it halts anyway. SIGTERM also shuts down cleanly.</li>
 * </ul>
 */
public final class BrokerMain {

    /** Prefix of the single stdout line that says the broker accepts requests; the bootstrap address follows. */
    public static final String READY_PREFIX = "STREAMHOUSE-BROKER-READY ";
    /** Log file of the child JVM, relative to the data directory. */
    public static final String LOG_FILE = "broker.log";
    /** Kafka's log directory (KRaft metadata and topic data), relative to the data directory. */
    public static final String KRAFT_DIR = "kraft";

    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
    private static final Duration READY_PROBE_TIMEOUT = Duration.ofSeconds(45);
    private static final int NODE_ID = 1;
    static final String CLIENT_LISTENER = "CLIENT";
    static final String MECHANISM = "SCRAM-SHA-512";
    static final int SCRAM_ITERATIONS = 4096;
    /** The users whose passwords the credentials directory holds and whom the broker knows as SCRAM users. */
    static final List<String> SCRAM_USERS = java.util.Arrays.stream(KafkaPrincipal.values()).map(KafkaPrincipal::userName).toList();
    static final List<String> SUPER_USERS = List.of(KafkaPrincipal.BROKER.userName(), KafkaCredentials.CONTROLLER_USER,
            KafkaPrincipal.PLATFORM.userName());

    private static final Object LOCK = new Object();
    private static final CountDownLatch STOPPED = new CountDownLatch(1);
    private static KafkaRaftServer server;
    private static boolean stopClaimed;
    private static PrintStream log;

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dataDir = null;
        Path credentialsDir = null;
        int port = 0;
        int nodeId = NODE_ID;
        String clusterId = null;
        List<ClusterMembership.Voter> voters = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data-dir" -> dataDir = Path.of(args[++i]).toAbsolutePath();
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--credentials-dir" -> credentialsDir = Path.of(args[++i]).toAbsolutePath();
                case "--node-id" -> nodeId = Integer.parseInt(args[++i]);
                case "--cluster-id" -> clusterId = args[++i];
                case "--quorum-voters" -> voters = ClusterMembership.parseVoters(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dataDir == null) {
            throw new IllegalArgumentException("--data-dir is required");
        }
        Files.createDirectories(dataDir);

        // The ready line is the only thing allowed on stdout: keep the real stdout for it and send everything else,
        // including slf4j-simple (which writes to System.err) and log4j's status logger, to the log file.
        PrintStream readyOut = System.out;
        log = new PrintStream(new FileOutputStream(dataDir.resolve(LOG_FILE).toFile(), true), true, StandardCharsets.UTF_8);
        System.setOut(log);
        System.setErr(log);
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSS");

        watchStdin(System.in);
        Runtime.getRuntime().addShutdownHook(new Thread(BrokerMain::stopServer, "streamhouse-broker-shutdown-hook"));

        try {
            ClusterMembership membership = voters == null ? null : new ClusterMembership(nodeId, clusterId, voters);
            run(dataDir, port, credentialsDir, membership, readyOut);
        } catch (Throwable e) {
            note("start failed: " + e);
            e.printStackTrace(log);
            stopAndHalt(1);
        }
    }

    private static void run(Path dataDir, int port, Path credentialsDir, ClusterMembership membership, PrintStream readyOut)
            throws Exception {
        long t0 = System.nanoTime();
        int clientPort = port == 0 ? freePort() : port;
        int nodeId = membership == null ? NODE_ID : membership.nodeId();
        List<ClusterMembership.Voter> voters = membership == null
                ? List.of(new ClusterMembership.Voter(NODE_ID, freePortOtherThan(clientPort))) : membership.voters();
        Path kraftDir = dataDir.resolve(KRAFT_DIR);
        Map<String, String> passwords = null;
        if (credentialsDir != null) {
            BrokerStorage.refuseStorageWithoutCredentials(dataDir, kraftDir);
            List<String> users = new ArrayList<>(SCRAM_USERS);
            users.add(KafkaCredentials.CONTROLLER_USER);
            passwords = KafkaCredentials.ensureAll(credentialsDir, users);
        }
        Properties config = passwords == null ? serverConfig(kraftDir, clientPort, nodeId, voters)
                : securedServerConfig(kraftDir, clientPort, nodeId, voters, passwords);
        formatIfNeeded(dataDir, kraftDir, config, passwords, membership == null ? newClusterId() : membership.clusterId());

        KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(config, false), Time.SYSTEM);
        synchronized (LOCK) {
            server = started;
        }
        started.startup();
        String bootstrap = "127.0.0.1:" + clientPort;
        KafkaClientSettings probe = credentialsDir == null ? KafkaClientSettings.from(KafkaPrincipal.BROKER, name -> null)
                : KafkaClientSettings.from(KafkaPrincipal.BROKER, Map.of(
                        KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT",
                        KafkaClientSettings.SASL_MECHANISM_ENV, MECHANISM,
                        KafkaClientSettings.CREDENTIALS_DIR_ENV, credentialsDir.toString())::get);
        awaitAnswer(bootstrap, probe, passwords);
        note("ready at " + bootstrap + " after " + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
        readyOut.println(READY_PREFIX + bootstrap);
        readyOut.flush();

        started.awaitShutdown();
        // Either a requested stop (stdin EOF, SIGTERM) that is still finishing its notes, or Kafka stopped itself.
        if (!STOPPED.await(SHUTDOWN_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            note("server stopped without a stop request");
        }
        Runtime.getRuntime().halt(0);
    }

    /**
     * {@link #serverConfig} with authentication and authorization: SASL/SCRAM-SHA-512 on the client listener (also between
     * brokers, as user {@code broker}), SASL/PLAIN on the controller listener (user {@code controller}, its password in
     * the JAAS line on both ends), the StandardAuthorizer denying what no ACL allows.
     */
    static Properties securedServerConfig(Path kraftDir, int clientPort, int controllerPort, Map<String, String> passwords) {
        return securedServerConfig(kraftDir, clientPort, NODE_ID, List.of(new ClusterMembership.Voter(NODE_ID, controllerPort)), passwords);
    }

    /**
     * {@link #serverConfig(Path, int, int, List)} secured as {@link #securedServerConfig(Path, int, int, Map)} says; in a
     * cluster the client listener is also the inter-broker one (replication authenticates as user {@code broker}) and
     * the controllers authenticate each other and the brokers over PLAIN as user {@code controller}.
     */
    static Properties securedServerConfig(Path kraftDir, int clientPort, int nodeId, List<ClusterMembership.Voter> voters,
                                          Map<String, String> passwords) {
        Properties p = serverConfig(kraftDir, clientPort, nodeId, voters);
        int controllerPort = ownControllerPort(nodeId, voters);
        p.put("listeners", CLIENT_LISTENER + "://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", CLIENT_LISTENER + "://127.0.0.1:" + clientPort);
        p.put("inter.broker.listener.name", CLIENT_LISTENER);
        p.put("listener.security.protocol.map", CLIENT_LISTENER + ":SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        p.put("sasl.enabled.mechanisms", MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.client.scram-sha-512.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + KafkaPrincipal.BROKER.userName() + "\" password=\"" + passwords.get(KafkaPrincipal.BROKER.userName()) + "\";");
        String controller = passwords.get(KafkaCredentials.CONTROLLER_USER);
        p.put("sasl.mechanism.controller.protocol", "PLAIN");
        p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.put("listener.name.controller.plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"" + KafkaCredentials.CONTROLLER_USER + "\" password=\"" + controller + "\" user_"
                + KafkaCredentials.CONTROLLER_USER + "=\"" + controller + "\";");
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("allow.everyone.if.no.acl.found", "false");
        p.put("super.users", String.join(";", SUPER_USERS.stream().map(u -> "User:" + u).toList()));
        return p;
    }

    /** A single node's configuration (node id 1, the only voter). */
    static Properties serverConfig(Path kraftDir, int clientPort, int controllerPort) {
        return serverConfig(kraftDir, clientPort, NODE_ID, List.of(new ClusterMembership.Voter(NODE_ID, controllerPort)));
    }

    /**
     * Server configuration of node {@code nodeId} among {@code voters}; {@code put} only, since every value here is either
     * a guarantee or a fitted default.
     */
    static Properties serverConfig(Path kraftDir, int clientPort, int nodeId, List<ClusterMembership.Voter> voters) {
        int controllerPort = ownControllerPort(nodeId, voters);
        if (controllerPort == clientPort) {
            throw new IllegalArgumentException("client and controller listeners on the same port " + clientPort);
        }
        String replicas = Integer.toString(ClusterMembership.replicationFactor(voters.size()));
        String minIsr = Integer.toString(ClusterMembership.minInsyncReplicas(voters.size()));
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", ClusterMembership.quorumVoters(voters));
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", kraftDir.toString());

        // One node: every replicated internal topic must accept a single replica, or groups/transactions hang. Three
        // nodes: three replicas, and an acks=all write needs two of them, so one node may die without losing a record.
        p.put("default.replication.factor", replicas);
        p.put("min.insync.replicas", minIsr);
        p.put("offsets.topic.replication.factor", replicas);
        p.put("transaction.state.log.replication.factor", replicas);
        p.put("transaction.state.log.min.isr", minIsr);
        p.put("share.coordinator.state.topic.replication.factor", replicas);
        p.put("share.coordinator.state.topic.min.isr", minIsr);
        // Topics come from the catalog only: a typo in a topic name must fail, not create a topic.
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "3");
        p.put("group.initial.rebalance.delay.ms", "0");

        // Fitted to a small development machine: fewer internal partitions make the first group/transaction start
        // faster, a small cleaner buffer keeps the heap small (the default would take 128 MB of it).
        p.put("offsets.topic.num.partitions", "10");
        p.put("transaction.state.log.num.partitions", "10");
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("num.recovery.threads.per.data.dir", "2");
        // A producer that died mid-transaction (a killed Connect worker, Streams instance or Flink job) blocks every
        // read_committed reader of its partitions until the coordinator aborts it. The coordinator looks for timed-out
        // transactions every 10 s by default, on top of the producer's own timeout; once a second keeps failover short.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        return p;
    }

    /**
     * Transactions as Kafka 3.x ran them (KIP-890's epoch bump at every transaction's end, version 2, off). Flink's Kafka
     * sink (connector 5.0) commits a transaction it recovers from a checkpoint by resuming the producer id and epoch it
     * stored; under version 2 the broker refused those commits as fenced after a kill -9 of the CEP job ("this most
     * likely signals data loss"), and the drills then found alerts missing and an alert id written twice (FLINK-40689).
     */
    static final int TRANSACTION_VERSION = 1;

    private static int ownControllerPort(int nodeId, List<ClusterMembership.Voter> voters) {
        return voters.stream().filter(v -> v.nodeId() == nodeId).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("node " + nodeId + " is not one of the voters " + voters))
                .controllerPort();
    }

    private static void formatIfNeeded(Path dataDir, Path kraftDir, Properties config, Map<String, String> passwords,
                                       String clusterId) throws IOException {
        if (Files.exists(kraftDir.resolve("meta.properties"))) {
            note("storage already formatted in " + kraftDir);
            return;
        }
        Path configFile = dataDir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(configFile)) {
            config.store(out, "written by " + BrokerMain.class.getName() + " for the storage format step");
        }
        List<String> args = new ArrayList<>(List.of("format", "--cluster-id", clusterId, "--config", configFile.toString(),
                "--ignore-formatted", "--feature", "transaction.version=" + TRANSACTION_VERSION));
        if (passwords != null) {
            for (String user : SCRAM_USERS) {
                args.add("--add-scram");
                args.add(MECHANISM + "=[name=" + user + ",password=" + passwords.get(user) + ",iterations=" + SCRAM_ITERATIONS + "]");
            }
        }
        int rc;
        try {
            rc = StorageTool.execute(args.toArray(String[]::new), log);
        } finally {
            // It holds the controller's password in a JAAS line: needed only for this step.
            Files.deleteIfExists(configFile);
        }
        if (rc != 0) {
            throw new IllegalStateException("kafka-storage format failed with exit code " + rc + " (see " + LOG_FILE + ")");
        }
        if (passwords != null) {
            Files.writeString(dataDir.resolve(BrokerStorage.SCRAM_MARKER), String.join("\n", SCRAM_USERS) + "\n");
        }
        note("formatted " + kraftDir + " with cluster id " + clusterId
                + (passwords == null ? "" : " and SCRAM users " + String.join(", ", SCRAM_USERS)));
    }

    /** A random cluster id; one that starts with '-' would be read as an option by the storage tool. */
    static String newClusterId() {
        String id;
        do {
            id = Uuid.randomUuid().toString();
        } while (id.startsWith("-"));
        return id;
    }

    /**
     * Waits until the client listener answers; with {@code passwords}, also registers the SCRAM credential of every user
     * that has none (a service added after the storage was formatted) and waits until the broker knows it, so that the
     * ready line means every service can log in.
     */
    private static void awaitAnswer(String bootstrap, KafkaClientSettings settings, Map<String, String> passwords) throws Exception {
        Map<String, Object> config = settings.admin(bootstrap, Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) READY_PROBE_TIMEOUT.toMillis()));
        try (Admin admin = Admin.create(config)) {
            admin.describeCluster().nodes().get(READY_PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (passwords == null) {
                return;
            }
            Set<String> known = admin.describeUserScramCredentials().users().get(READY_PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .stream().collect(java.util.stream.Collectors.toSet());
            List<UserScramCredentialAlteration> missing = new ArrayList<>();
            for (String user : SCRAM_USERS) {
                if (!known.contains(user)) {
                    missing.add(new UserScramCredentialUpsertion(user,
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), passwords.get(user)));
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            admin.alterUserScramCredentials(missing).all().get(READY_PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            note("registered SCRAM credentials of " + missing.stream().map(UserScramCredentialAlteration::user).toList());
            // Credentials reach the broker's cache through the metadata log: wait until it lists every user.
            long deadline = System.nanoTime() + READY_PROBE_TIMEOUT.toNanos();
            while (!admin.describeUserScramCredentials().users().get().containsAll(SCRAM_USERS)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker did not list the new SCRAM users within " + READY_PROBE_TIMEOUT);
                }
                Thread.onSpinWait();
            }
        }
    }

    private static void watchStdin(InputStream in) {
        Thread watcher = new Thread(() -> {
            byte[] buffer = new byte[256];
            try {
                while (in.read(buffer) != -1) {
                    // The parent never writes; anything read is ignored. Only end-of-file matters.
                }
            } catch (IOException e) {
                note("stdin failed (" + e + "); treating it as end-of-file");
            }
            note("stdin reached end-of-file: the parent closed it or died; shutting down");
            stopAndHalt(0);
        }, "streamhouse-broker-stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** Stops the server (if started) within {@link #SHUTDOWN_GRACE} and halts; never returns. */
    private static void stopAndHalt(int status) {
        Thread guard = new Thread(() -> {
            try {
                if (STOPPED.await(SHUTDOWN_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    return; // the stopping thread halts
                }
                note("clean shutdown took longer than " + SHUTDOWN_GRACE + "; halting");
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(status == 0 ? 2 : status);
        }, "streamhouse-broker-shutdown-guard");
        guard.setDaemon(true);
        guard.start();
        stopServer();
        Runtime.getRuntime().halt(status);
    }

    /** Shuts the server down once; a second caller (stdin EOF and SIGTERM together) waits for the first. */
    private static void stopServer() {
        KafkaRaftServer toStop;
        boolean first;
        synchronized (LOCK) {
            first = !stopClaimed;
            stopClaimed = true;
            toStop = server;
            server = null;
        }
        if (!first) {
            try {
                STOPPED.await(SHUTDOWN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            if (toStop != null) {
                note("shutting down the server");
                toStop.shutdown();
                toStop.awaitShutdown();
                note("server shut down cleanly");
            }
        } finally {
            STOPPED.countDown();
        }
    }

    /**
     * A free port for the controller that is not the client's: the client port is chosen by the parent (or just
     * above) and no longer held, so the system may hand the same number out again, and Kafka refuses two listeners
     * on one port.
     */
    static int freePortOtherThan(int taken) {
        return portOtherThan(taken, BrokerMain::freePort);
    }

    static int portOtherThan(int taken, IntSupplier freePorts) {
        while (true) {
            int candidate = freePorts.getAsInt();
            if (candidate != taken) {
                return candidate;
            }
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    private static void note(String message) {
        PrintStream out = log != null ? log : System.err;
        out.println(Instant.now() + " [streamhouse-broker] " + message);
    }
}
