package io.streamhouse.platform;

import io.streamhouse.connect.CdcConnector;
import io.streamhouse.connect.ConnectOptions;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.registry.RegistryConfig;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.apache.kafka.common.acl.AclOperation.ALL;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.IDEMPOTENT_WRITE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

/**
 * Who may do what on the broker: the least-privilege ACLs of every {@link KafkaPrincipal}, in one table
 * (docs/kafka-security.md), and {@link #apply} that makes the broker hold exactly these for the principals it names.
 *
 * <p>What each grant is for:
 * <ul>
 *   <li>READ on a topic a service consumes, WRITE on a topic it produces (both imply DESCRIBE), WRITE on the dead-letter
 *       topic of every topic it reads or writes (each service writes its own dead letters).</li>
 *   <li>A Kafka Streams application with {@code exactly_once_v2}: ALL on topics prefixed with its application id (its
 *       changelog and repartition topics, which it creates), READ on its group, WRITE+DESCRIBE on transactional ids
 *       prefixed with its application id ({@code <appId>-<processId>-<thread>}).</li>
 *   <li>The Flink job's exactly-once sinks: WRITE+DESCRIBE on transactional ids prefixed with its group id.</li>
 *   <li>Kafka Connect (exactly-once source support): its worker group and internal topics, IDEMPOTENT_WRITE on the cluster
 *       (the leader's config-topic producer), the source's transactional ids ({@code <group>-<connector>-<task>}), the
 *       Iceberg sink's groups, control topics and transactional ids ({@value #LAKE_TRANSACTIONAL_PREFIX}…).</li>
 * </ul>
 * {@code broker}, {@code controller} and {@code platform} are super users (the broker writes transaction markers, the
 * platform creates topics and applies these ACLs) and get no entries here.
 */
public final class KafkaAcls {

    /** The Streams application ids, the CEP job's group, and what their shadows (replay) are named after. */
    public static final String DECISIONS_APP = "streamhouse-api";
    public static final String SERVING_APP = "streamhouse-serving";
    public static final String CDC_APP = "streamhouse-ingest-cdc";
    public static final String CEP_GROUP = "streamhouse-cep";
    public static final String LAKE_QUERY_GROUP = "streamhouse-lake-query";
    /** The benchmarks' scratch topics, and their groups and transactional ids. */
    public static final String BENCH_TOPIC_PREFIX = "bench.";
    public static final String BENCH_PREFIX = "bench-";
    /** The Iceberg sink's transactional-id prefix ({@code iceberg.coordinator.transactional.prefix}). */
    public static final String LAKE_TRANSACTIONAL_PREFIX = LakeConnector.TRANSACTIONAL_PREFIX;
    /** Debezium's heartbeat topic, created by Connect. */
    public static final String DEBEZIUM_HEARTBEAT_TOPIC = "__debezium-heartbeat." + CdcConnector.TOPIC_PREFIX;

    private KafkaAcls() {
    }

    /** Every ACL of every principal below the super users. */
    public static List<AclBinding> all() {
        List<AclBinding> acls = new ArrayList<>();
        for (KafkaPrincipal p : KafkaPrincipal.values()) {
            acls.addAll(of(p));
        }
        return acls;
    }

    /** The ACLs of one principal; none for the super users. */
    public static List<AclBinding> of(KafkaPrincipal principal) {
        Grants g = new Grants(principal);
        switch (principal) {
            case BROKER, PLATFORM -> {
                // super users
            }
            case INGEST -> g.write(Topics.TRANSACTION_REQUESTS, Topics.VEHICLE_TELEMETRY, Topics.PARCEL_SCANS, Topics.AUDIT_EVENTS)
                    // The authorize waiter answers a payment from its decision (assigned partitions, no group): every
                    // decision, or its own partition of the replies.
                    .read(Topics.TRANSACTION_DECISIONS, Topics.TRANSACTION_DECISION_REPLIES);
            case DECISIONS -> g.read(Topics.TRANSACTION_REQUESTS, Topics.CUSTOMERS, Topics.RULES, Topics.REVIEW_OUTCOMES, Topics.FRAUD_ALERTS,
                            Topics.TRANSACTION_DECISIONS)
                    .write(Topics.TRANSACTION_DECISIONS, Topics.TRANSACTION_DECISION_REPLIES, Topics.FRAUD_ALERTS, Topics.LINEAGE_EVENTS)
                    .streamsApp(DECISIONS_APP);
            case SERVING -> g.read(Topics.PARCEL_SCANS, Topics.VEHICLE_TELEMETRY, Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS,
                            Topics.MAINTENANCE_ALERTS, Topics.CUSTOMERS, Topics.ORDERS, Topics.TRANSACTION_DECISIONS,
                            // The rules' history (RuleHistoryTopology): read only, the api alone writes the trail.
                            Topics.AUDIT_EVENTS)
                    .write(Topics.CUSTOMER_PROFILES, Topics.LINEAGE_EVENTS)
                    // A promoted shadow (replay promote) serves under <app>-shadow-<id>: the same prefix.
                    .streamsApp(SERVING_APP);
            case API -> g.write(Topics.RULES, Topics.REVIEW_OUTCOMES, Topics.AUDIT_EVENTS)
                    // The rules bootstrap, the review checks, the live alert stream and GET /v1/lineage (assigned, no group).
                    .read(Topics.RULES, Topics.TRANSACTION_DECISIONS, Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS,
                            Topics.MAINTENANCE_ALERTS, Topics.LINEAGE_EVENTS)
                    // The MCP topic catalog describes every topic and its configs.
                    .topics(literalNames(Topics.allWithDeadLetters()), DESCRIBE, DESCRIBE_CONFIGS);
            case CDC_NORMALISER -> g.read(Topics.CDC_SHOP_CHANGES)
                    .write(Topics.CUSTOMERS, Topics.ORDERS, Topics.LINEAGE_EVENTS)
                    .streamsApp(CDC_APP);
            case CEP -> g.read(Topics.TRANSACTION_REQUESTS, Topics.VEHICLE_TELEMETRY, Topics.PARCEL_SCANS, Topics.ORDERS,
                            Topics.CUSTOMERS, Topics.RULES)
                    .write(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS, Topics.LINEAGE_EVENTS)
                    .topics(Topics.eventTimeInputs().stream().map(t -> Topics.lateOf(t).name()).toList(), WRITE)
                    .group(CEP_GROUP, PatternType.PREFIXED, READ)
                    .transactionalIds(CEP_GROUP, PatternType.PREFIXED)
                    // A replay shadow of the job (same code, same principal) writes its own topics.
                    .topic(CEP_GROUP + "-shadow-", PatternType.PREFIXED, ALL);
            case CONNECT -> {
                String worker = ConnectOptions.DEFAULT_GROUP_ID;
                g.group(worker, PatternType.LITERAL, READ)
                        // Its config, offset and status topics (<group>.configs, …), which it creates.
                        .topic(worker + ".", PatternType.PREFIXED, ALL)
                        // Source tasks' producers (<group>-<connector>-<task>) and the leader's config-topic producer.
                        .transactionalIds(worker, PatternType.PREFIXED)
                        .transactionalIds("connect-cluster-" + worker, PatternType.LITERAL)
                        .cluster(IDEMPOTENT_WRITE, DESCRIBE)
                        // Debezium: the raw change topic and its own heartbeat topic.
                        .write(Topics.CDC_SHOP_CHANGES)
                        .topic(DEBEZIUM_HEARTBEAT_TOPIC, PatternType.LITERAL, CREATE, WRITE, DESCRIBE, DESCRIBE_CONFIGS)
                        // The Iceberg sink: every landed topic, its groups, control topics, dead letters and transactions.
                        .read(Topics.all().toArray(Topic[]::new))
                        .group(LakeConnector.connectGroup(), PatternType.LITERAL, READ)
                        .group(LakeConnector.coordinatorGroup(), PatternType.LITERAL, READ)
                        .group(LakeConnector.CONTROL_GROUP_PREFIX, PatternType.PREFIXED, READ)
                        .topic(LakeConnector.CONTROL_TOPIC_PREFIX, PatternType.PREFIXED, READ, WRITE, DESCRIBE)
                        .topic(LakeConnector.DEAD_LETTER_TOPIC, PatternType.LITERAL, WRITE, DESCRIBE)
                        .transactionalIds(LAKE_TRANSACTIONAL_PREFIX, PatternType.PREFIXED)
                        .write(Topics.LINEAGE_EVENTS);
            }
            case REGISTRY -> g.topic(RegistryConfig.DEFAULT_TOPIC, PatternType.LITERAL, ALL);
            case REPLAY -> {
                // Replay reads every topic from offset 0 and compares, runs shadows under its own names, and moves the live
                // applications' groups to a cut (rebuild --reset, drills): read everything, write only its own.
                g.topic("*", PatternType.LITERAL, READ, DESCRIBE, DESCRIBE_CONFIGS)
                        .group("*", PatternType.LITERAL, READ, DESCRIBE, DELETE);
                for (String app : List.of(DECISIONS_APP, SERVING_APP, CDC_APP, CEP_GROUP)) {
                    g.topic(app + "-shadow-", PatternType.PREFIXED, ALL)
                            .group(app + "-shadow-", PatternType.PREFIXED, ALL)
                            .transactionalIds(app + "-shadow-", PatternType.PREFIXED);
                }
            }
            case LAKE_QUERY -> g.read(Topics.all().toArray(Topic[]::new))
                    .group(LAKE_QUERY_GROUP, PatternType.PREFIXED, READ);
            case LOAD_TESTS -> g.write(Topics.eventTimeInputs().toArray(Topic[]::new))
                    .topic("*", PatternType.LITERAL, READ, DESCRIBE)
                    // The benchmarks' scratch topics (bench.<run>.*), groups and transactional ids (bench-*), and the
                    // group Kafka's EndToEndLatency names itself (test-group-<time>).
                    .topic(BENCH_TOPIC_PREFIX, PatternType.PREFIXED, ALL)
                    .group(BENCH_PREFIX, PatternType.PREFIXED, READ, DESCRIBE, DELETE)
                    .group("test-group-", PatternType.PREFIXED, READ)
                    .transactionalIds(BENCH_PREFIX, PatternType.PREFIXED);
        }
        return g.bindings();
    }

    /**
     * Makes the broker hold {@link #all()}: creates what is missing and deletes the ACLs of these principals that the
     * table no longer has (a grant removed from the table is revoked at the next start). Returns the number created and
     * deleted. Run on every platform start, as the platform principal (a super user).
     */
    public static Applied apply(Admin admin) {
        List<AclBinding> wanted = all();
        try {
            Set<String> ours = new HashSet<>();
            for (KafkaPrincipal p : KafkaPrincipal.values()) {
                ours.add(principalName(p));
            }
            Collection<AclBinding> existing = admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS);
            Set<AclBinding> have = new HashSet<>(existing);
            List<AclBinding> missing = wanted.stream().filter(b -> !have.contains(b)).toList();
            Set<AclBinding> wantedSet = new HashSet<>(wanted);
            List<AclBindingFilter> stale = existing.stream()
                    .filter(b -> ours.contains(b.entry().principal()) && !wantedSet.contains(b))
                    .map(AclBinding::toFilter).toList();
            if (!missing.isEmpty()) {
                admin.createAcls(missing).all().get(30, TimeUnit.SECONDS);
            }
            if (!stale.isEmpty()) {
                admin.deleteAcls(stale).all().get(30, TimeUnit.SECONDS);
            }
            // ACLs reach the authorizer through the metadata log, after the call returned: a service started right after
            // would be denied. Wait until the broker lists them all.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!missing.isEmpty() && !admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS).containsAll(wanted)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the broker did not list the new ACLs within 30 s");
                }
                Thread.onSpinWait();
            }
            return new Applied(wanted.size(), missing.size(), stale.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while applying Kafka ACLs", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not apply Kafka ACLs: " + e.getMessage(), e);
        }
    }

    /** What {@link #apply} did. */
    public record Applied(int total, int created, int deleted) {
    }

    /**
     * Whether {@link #of}{@code (principal)} allows {@code operation} on the named resource, as the StandardAuthorizer
     * matches ACLs: a literal name, the wildcard {@code *}, or a prefix; {@code ALL} allows every operation. Implied
     * operations (DESCRIBE from READ or WRITE) are not derived. For tests that hold the table against what the services do.
     */
    public static boolean allows(KafkaPrincipal principal, ResourceType type, String name, AclOperation operation) {
        return of(principal).stream().anyMatch(b -> {
            ResourcePattern pattern = b.pattern();
            boolean resource = pattern.resourceType() == type && switch (pattern.patternType()) {
                case LITERAL -> pattern.name().equals(name) || pattern.name().equals(ResourcePattern.WILDCARD_RESOURCE);
                case PREFIXED -> name.startsWith(pattern.name());
                default -> false;
            };
            AclOperation granted = b.entry().operation();
            return resource && (granted == operation || granted == ALL);
        });
    }

    public static String principalName(KafkaPrincipal principal) {
        return "User:" + principal.userName();
    }

    private static List<String> literalNames(Collection<? extends Topic<?, ?>> topics) {
        return topics.stream().map(Topic::name).toList();
    }

    /** Collects one principal's grants; every binding allows, from any host. */
    private static final class Grants {
        private final String principal;
        private final Set<AclBinding> bindings = new LinkedHashSet<>();

        Grants(KafkaPrincipal principal) {
            this.principal = principalName(principal);
        }

        Grants read(Topic<?, ?>... topics) {
            for (Topic<?, ?> t : topics) {
                topic(t.name(), PatternType.LITERAL, READ);
                deadLetters(t);
            }
            return this;
        }

        Grants write(Topic<?, ?>... topics) {
            for (Topic<?, ?> t : topics) {
                topic(t.name(), PatternType.LITERAL, WRITE);
                deadLetters(t);
            }
            return this;
        }

        private void deadLetters(Topic<?, ?> t) {
            if (Topics.allWithDeadLetters().stream().anyMatch(d -> d.name().equals(t.name() + ".dlq"))) {
                topic(t.name() + ".dlq", PatternType.LITERAL, WRITE);
            }
        }

        Grants topics(List<String> names, AclOperation... operations) {
            names.forEach(n -> topic(n, PatternType.LITERAL, operations));
            return this;
        }

        Grants topic(String name, PatternType pattern, AclOperation... operations) {
            return add(ResourceType.TOPIC, name, pattern, operations);
        }

        Grants group(String name, PatternType pattern, AclOperation... operations) {
            return add(ResourceType.GROUP, name, pattern, operations);
        }

        Grants transactionalIds(String prefixOrName, PatternType pattern) {
            return add(ResourceType.TRANSACTIONAL_ID, prefixOrName, pattern, WRITE, DESCRIBE);
        }

        Grants cluster(AclOperation... operations) {
            return add(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, operations);
        }

        /** Streams with exactly_once_v2: its own topics, group and transactional ids, all named after its id. */
        Grants streamsApp(String applicationId) {
            return topic(applicationId, PatternType.PREFIXED, ALL)
                    .group(applicationId, PatternType.PREFIXED, READ)
                    .transactionalIds(applicationId, PatternType.PREFIXED);
        }

        private Grants add(ResourceType type, String name, PatternType pattern, AclOperation... operations) {
            for (AclOperation op : operations) {
                bindings.add(new AclBinding(new ResourcePattern(type, name, pattern),
                        new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
            }
            return this;
        }

        List<AclBinding> bindings() {
            return List.copyOf(bindings);
        }
    }
}
