package io.streamhouse.connect;

import io.streamhouse.lake.LakeTables;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Prepares the lake on a cluster where nobody is the administrator (Kubernetes: the Job of
 * {@code deploy/kubernetes/manifests/32-lake-prepare.yaml}), before the sink's first start, as the {@code connect}
 * user: checks that the control and dead-letter topics exist (they are {@code KafkaTopic}s; {@code connect} may not
 * create topics), creates or evolves every landed topic's Iceberg table ({@link LakeTables#ensure}), and seeds the
 * coordinator's group at offset 0 of the control topic ({@link LakePreparation#seedCoordinator}). Each step is a no-op
 * when already done, so running it again (a retried Job, a second apply) changes nothing.
 *
 * <p>Arguments: {@code --catalog <properties file>} (the Iceberg catalog: the lake connector's {@code iceberg.catalog.*}
 * without the prefix), {@code --bootstrap <servers>}, {@code --control-topic <name>}. The catalog's database password
 * from the environment variable {@value #PASSWORD_ENV} ({@code jdbc.password}), never from a file in a ConfigMap; the
 * Kafka login from {@link KafkaClientSettings}. Exit 0 after one stdout line {@value #DONE_PREFIX}…, 1 when a step
 * fails (the reason on stderr), 2 on bad arguments.
 */
public final class LakePrepareMain {

    public static final String DONE_PREFIX = "STREAMHOUSE-LAKE-PREPARED ";
    public static final String PASSWORD_ENV = "LAKE_CATALOG_PASSWORD";

    /** The parsed arguments. */
    public record Arguments(Path catalog, String bootstrap, String controlTopic) {
    }

    private LakePrepareMain() {
    }

    public static void main(String[] args) {
        Arguments a;
        try {
            a = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        try {
            System.out.println(DONE_PREFIX + run(a, System::getenv));
            System.out.flush();
            System.exit(0);
        } catch (Exception | LinkageError e) {
            System.err.println("cannot prepare the lake: " + e.getMessage());
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    /** Fails naming the argument that is missing, unknown or without a value. */
    public static Arguments parse(String[] args) {
        Map<String, String> values = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!List.of("--catalog", "--bootstrap", "--control-topic").contains(name)) {
                throw new IllegalArgumentException(usage("unknown argument " + name));
            }
            if (i + 1 >= args.length || args[i + 1].isBlank()) {
                throw new IllegalArgumentException(usage(name + " needs a value"));
            }
            values.put(name, args[++i]);
        }
        for (String required : List.of("--catalog", "--bootstrap", "--control-topic")) {
            if (!values.containsKey(required)) {
                throw new IllegalArgumentException(usage(required + " is missing"));
            }
        }
        String control = values.get("--control-topic");
        if (!control.startsWith(LakeConnector.CONTROL_TOPIC_PREFIX)) {
            throw new IllegalArgumentException(usage("--control-topic must start with " + LakeConnector.CONTROL_TOPIC_PREFIX + ", was " + control));
        }
        return new Arguments(Path.of(values.get("--catalog")), values.get("--bootstrap"), control);
    }

    private static String usage(String problem) {
        return problem + "; usage: LakePrepareMain --catalog <properties file> --bootstrap <servers> --control-topic <name>";
    }

    /** The three steps; returns what was done, for the one line the Job's log shows. */
    static String run(Arguments a, UnaryOperator<String> env) throws Exception {
        Map<String, String> catalogProperties = catalogProperties(a.catalog(), env);
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.CONNECT).admin(a.bootstrap()))) {
            List<String> missing = LakePreparation.missingTopics(admin, a.controlTopic());
            if (!missing.isEmpty()) {
                throw new IllegalStateException("the topics " + missing + " do not exist: apply their KafkaTopics first ("
                        + "20-kafka-topics.yaml); the connect user may not create topics");
            }
            LakeTables.Outcome tables = LakeTables.ensureLanded(catalogProperties);
            boolean seeded = LakePreparation.seedCoordinator(admin, a.controlTopic());
            return "tables created=" + tables.created() + " evolved=" + tables.evolved() + " unchanged=" + tables.unchanged().size()
                    + " recreated=" + tables.recreated() + "; coordinator group " + LakeConnector.coordinatorGroup()
                    + (seeded ? " seeded at offset 0 of " : " already has an offset on ") + a.controlTopic();
        }
    }

    /** The file's properties, and {@code jdbc.password} from {@value #PASSWORD_ENV} when set; a password in the file is refused. */
    static Map<String, String> catalogProperties(Path file, UnaryOperator<String> env) throws IOException {
        Map<String, String> out = LakeTables.readProperties(file);
        if (out.containsKey("jdbc.password")) {
            throw new IllegalArgumentException(file + " holds jdbc.password: give it in " + PASSWORD_ENV + " instead");
        }
        String password = env.apply(PASSWORD_ENV);
        if (password != null && !password.isEmpty()) {
            out.put("jdbc.password", password);
        }
        return out;
    }
}
