package io.streamhouse.security.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The security settings of every Kafka client, in one place: each client's configuration is built here from its own
 * settings plus what this class adds, so turning on authentication changes this class (and the broker), not the
 * fifteen places that build clients.
 *
 * <p>Read from system properties, else the environment (docs/kafka-security.md, "Kafka clients"):
 * {@code STREAMHOUSE_KAFKA_SECURITY_PROTOCOL} ({@code PLAINTEXT}, the default, or {@code SASL_PLAINTEXT}),
 * {@code STREAMHOUSE_KAFKA_SASL_MECHANISM} ({@code SCRAM-SHA-512}, the default, {@code SCRAM-SHA-256} or
 * {@code PLAIN}) and {@code STREAMHOUSE_KAFKA_CREDENTIALS_DIR}, a directory with one {@code <user>.password} file
 * per {@link KafkaPrincipal}; the user name is the principal's. Unset, a client gets {@code security.protocol=PLAINTEXT}
 * and nothing else, which is Kafka's default.
 *
 * <p>Guarantees: the security settings are put last, and a caller's settings that name one
 * ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) are refused, so no client can drift from the others.
 * A setting that is invalid or would be ignored fails at once with a message naming it.
 */
public final class KafkaClientSettings {

    public static final String SECURITY_PROTOCOL_ENV = "STREAMHOUSE_KAFKA_SECURITY_PROTOCOL";
    public static final String SASL_MECHANISM_ENV = "STREAMHOUSE_KAFKA_SASL_MECHANISM";
    public static final String CREDENTIALS_DIR_ENV = "STREAMHOUSE_KAFKA_CREDENTIALS_DIR";

    static final String SECURITY_PROTOCOL = "security.protocol";
    static final String SASL_MECHANISM = "sasl.mechanism";
    static final String SASL_JAAS_CONFIG = "sasl.jaas.config";
    static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

    private static final Set<String> MECHANISMS = Set.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");

    /** Kafka's config provider that reads one file of a directory as a value: how Connect configs name a password. */
    static final String DIRECTORY_PROVIDER = "org.apache.kafka.common.config.provider.DirectoryConfigProvider";

    private final KafkaPrincipal principal;
    private final Map<String, String> security;
    private final Path credentialsDir;

    private KafkaClientSettings(KafkaPrincipal principal, Map<String, String> security, Path credentialsDir) {
        this.principal = principal;
        this.security = Collections.unmodifiableMap(security);
        this.credentialsDir = credentialsDir;
    }

    /** The settings of {@code principal} from system properties ({@code streamhouse.kafka.security.protocol}, ...) or the environment. */
    public static KafkaClientSettings forPrincipal(KafkaPrincipal principal) {
        return from(principal, name -> {
            String property = System.getProperty(propertyName(name));
            return property != null ? property : System.getenv(name);
        });
    }

    /** {@code STREAMHOUSE_KAFKA_SECURITY_PROTOCOL} → {@code streamhouse.kafka.security.protocol}. */
    static String propertyName(String environmentName) {
        String lower = environmentName.toLowerCase(Locale.ROOT);
        return "streamhouse.kafka." + lower.substring("streamhouse_kafka_".length()).replace('_', '.');
    }

    /** The settings of {@code principal} from {@code lookup} (an environment variable's name → its value, or null). */
    public static KafkaClientSettings from(KafkaPrincipal principal, UnaryOperator<String> lookup) {
        Objects.requireNonNull(principal, "principal");
        String protocol = blankToNull(lookup.apply(SECURITY_PROTOCOL_ENV));
        String mechanism = blankToNull(lookup.apply(SASL_MECHANISM_ENV));
        String credentialsDir = blankToNull(lookup.apply(CREDENTIALS_DIR_ENV));
        Map<String, String> security = new LinkedHashMap<>();
        if (protocol == null || protocol.equals("PLAINTEXT")) {
            if (mechanism != null || credentialsDir != null) {
                throw new IllegalArgumentException((mechanism != null ? SASL_MECHANISM_ENV : CREDENTIALS_DIR_ENV)
                        + " is set but " + SECURITY_PROTOCOL_ENV + " is " + (protocol == null ? "unset (PLAINTEXT)" : protocol)
                        + ": set " + SECURITY_PROTOCOL_ENV + "=SASL_PLAINTEXT or unset it");
            }
            security.put(SECURITY_PROTOCOL, "PLAINTEXT");
            return new KafkaClientSettings(principal, security, null);
        }
        if (!protocol.equals("SASL_PLAINTEXT")) {
            throw new IllegalArgumentException(SECURITY_PROTOCOL_ENV + "=" + protocol
                    + " is not supported: PLAINTEXT or SASL_PLAINTEXT (every listener is on loopback; TLS is not set up)");
        }
        String sasl = mechanism == null ? "SCRAM-SHA-512" : mechanism;
        if (!MECHANISMS.contains(sasl)) {
            throw new IllegalArgumentException(SASL_MECHANISM_ENV + "=" + sasl + " is not supported: one of " + MECHANISMS);
        }
        if (credentialsDir == null) {
            throw new IllegalArgumentException(CREDENTIALS_DIR_ENV + " is required with " + SECURITY_PROTOCOL_ENV + "=" + protocol
                    + ": a directory with " + principal.userName() + ".password");
        }
        security.put(SECURITY_PROTOCOL, protocol);
        security.put(SASL_MECHANISM, sasl);
        Path dir = Path.of(credentialsDir).toAbsolutePath().normalize();
        security.put(SASL_JAAS_CONFIG, jaas(sasl, principal.userName(), password(dir, principal)));
        return new KafkaClientSettings(principal, security, dir);
    }

    private static String password(Path dir, KafkaPrincipal principal) {
        Path file = KafkaCredentials.file(dir, principal.userName());
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no password for Kafka user " + principal.userName() + ": " + file
                    + " does not exist (" + CREDENTIALS_DIR_ENV + "=" + dir + ")");
        }
        return readPassword(file);
    }

    /** The one password in {@code file}, checked to be safe inside a JAAS value. */
    static String readPassword(Path file) {
        String password;
        try {
            password = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        // The JAAS value quotes the password; rather than escape, refuse what would need escaping (the launcher writes hex).
        if (password.isEmpty() || !password.chars().allMatch(c -> c > ' ' && c < 127 && c != '"' && c != '\\')) {
            throw new IllegalArgumentException(file + " must hold one password of printable ASCII without quotes, backslashes or spaces");
        }
        return password;
    }

    private static String jaas(String mechanism, String user, String password) {
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        return module + " required username=\"" + user + "\" password=\"" + password + "\";";
    }

    /**
     * The settings this process runs with ({@link #forPrincipal}'s sources), as the environment variables a child
     * process needs to run with the same: what a launcher hands every JVM it starts. Empty when unset (PLAINTEXT).
     */
    public static Map<String, String> childEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : new String[] {SECURITY_PROTOCOL_ENV, SASL_MECHANISM_ENV, CREDENTIALS_DIR_ENV}) {
            String property = System.getProperty(propertyName(name));
            String value = blankToNull(property != null ? property : System.getenv(name));
            if (value != null) {
                env.put(name, value);
            }
        }
        return env;
    }

    /**
     * Makes every client of this process log in with SASL/SCRAM-SHA-512 using the passwords in {@code credentialsDir}
     * (system properties, read by {@link #forPrincipal}), unless this process was told otherwise already (a property or
     * an environment variable names a protocol: an explicit choice wins). For a main program that owns its process:
     * the launcher, the replay CLI. Closing the result restores the properties as they were.
     *
     * @return how to undo what this call set
     */
    public static ProcessSettings useSaslUnlessConfigured(Path credentialsDir) {
        return useUnlessConfigured(Map.of(SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT", SASL_MECHANISM_ENV, "SCRAM-SHA-512",
                CREDENTIALS_DIR_ENV, credentialsDir.toAbsolutePath().normalize().toString()));
    }

    /**
     * As {@link #useSaslUnlessConfigured}, with the settings given as {@link #childEnvironment()} gives them (a running
     * stack's endpoints file, a {@code Properties} read by a tool); keys other than these three are ignored.
     */
    public static ProcessSettings useUnlessConfigured(Map<?, ?> environment) {
        if (childEnvironment().containsKey(SECURITY_PROTOCOL_ENV)) {
            return new ProcessSettings(Map.of());
        }
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String name : new String[] {SECURITY_PROTOCOL_ENV, SASL_MECHANISM_ENV, CREDENTIALS_DIR_ENV}) {
            Object given = environment.get(name);
            String value = given == null ? null : blankToNull(given.toString());
            if (value != null) {
                wanted.put(name, value);
            }
        }
        if (!wanted.containsKey(SECURITY_PROTOCOL_ENV)) {
            return new ProcessSettings(Map.of());
        }
        Map<String, String> previous = new LinkedHashMap<>();
        wanted.forEach((env, value) -> {
            String property = propertyName(env);
            previous.put(property, System.getProperty(property));
            System.setProperty(property, value);
        });
        return new ProcessSettings(previous);
    }

    /** What {@link #useSaslUnlessConfigured} did; {@link #close()} undoes it. */
    public static final class ProcessSettings implements AutoCloseable {
        private final Map<String, String> previous;

        ProcessSettings(Map<String, String> previous) {
            this.previous = previous;
        }

        @Override
        public void close() {
            previous.forEach((property, value) -> {
                if (value == null) {
                    System.clearProperty(property);
                } else {
                    System.setProperty(property, value);
                }
            });
        }
    }

    /** Whether clients of this process authenticate (SASL), from {@link #forPrincipal}'s sources. */
    public static boolean saslConfigured() {
        return "SASL_PLAINTEXT".equals(childEnvironment().get(SECURITY_PROTOCOL_ENV));
    }

    /** The credentials directory this process's clients read ({@value #CREDENTIALS_DIR_ENV}), if set. */
    public static java.util.Optional<Path> credentialsDir() {
        return java.util.Optional.ofNullable(childEnvironment().get(CREDENTIALS_DIR_ENV)).map(Path::of);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    public KafkaPrincipal principal() {
        return principal;
    }

    /**
     * The security settings with the password replaced by {@code passwordReference}, e.g. a Kafka config provider's
     * {@code ${dir:/path:connect.password}}: for configurations that are stored where a password must not be (a
     * connector's configuration lives in Connect's config topic). With PLAINTEXT, the same as {@link #security()}.
     */
    public Map<String, String> securityReferencingPassword(String passwordReference) {
        Map<String, String> referenced = new LinkedHashMap<>(security);
        if (referenced.containsKey(SASL_JAAS_CONFIG)) {
            referenced.put(SASL_JAAS_CONFIG, jaas(referenced.get(SASL_MECHANISM), principal.userName(), passwordReference));
        }
        return referenced;
    }

    /** Only the security settings, unprefixed ({@code security.protocol}, and with SASL {@code sasl.mechanism}, {@code sasl.jaas.config}). */
    public Map<String, String> security() {
        return security;
    }

    /** The security settings with every key prefixed: {@code kafka.} (Quarkus), {@code properties.} (Flink SQL), ... */
    public Map<String, String> security(String prefix) {
        Map<String, String> prefixed = new LinkedHashMap<>();
        security.forEach((k, v) -> prefixed.put(prefix + k, v));
        return prefixed;
    }

    /**
     * An admin client's configuration: {@code own} settings (a {@code Map} or {@code Properties} with String keys),
     * then the bootstrap servers and the security settings.
     */
    public Map<String, Object> admin(String bootstrapServers, Map<?, ?> own) {
        return client(bootstrapServers, own);
    }

    public Map<String, Object> admin(String bootstrapServers) {
        return client(bootstrapServers, Map.of());
    }

    /** A producer's configuration: {@code own} settings, then the bootstrap servers and the security settings. */
    public Map<String, Object> producer(String bootstrapServers, Map<?, ?> own) {
        return client(bootstrapServers, own);
    }

    /** A consumer's configuration: {@code own} settings, then the bootstrap servers and the security settings. */
    public Map<String, Object> consumer(String bootstrapServers, Map<?, ?> own) {
        return client(bootstrapServers, own);
    }

    /**
     * A Kafka Streams application's configuration: {@code own} settings, then the bootstrap servers and the security
     * settings (Streams hands them to its producers, consumers and admin). {@code own} may hold Streams' prefixed
     * client settings ({@code consumer.}, {@code producer.}, ...) but no security setting, prefixed or not.
     */
    public Properties streams(String bootstrapServers, Properties own) {
        Properties p = new Properties();
        own.forEach((k, v) -> p.put(k, v));
        p.putAll(client(bootstrapServers, Map.of()));
        refuseSecurityKeys(own.stringPropertyNames());
        return p;
    }

    /**
     * Security settings for Flink's {@code KafkaSource}/{@code KafkaSink} builders ({@code setProperties} /
     * {@code setKafkaProducerConfig}): {@code own} settings, then the security settings; the bootstrap servers go
     * through the builders' {@code setBootstrapServers}.
     */
    public Properties flink(Properties own) {
        refuseSecurityKeys(own.stringPropertyNames());
        Properties p = new Properties();
        own.forEach((k, v) -> p.put(k, v));
        p.putAll(security);
        return p;
    }

    /**
     * A Kafka Connect worker's configuration: {@code own}, then the bootstrap servers and the security settings for the
     * worker's own clients and, prefixed {@code producer.}, {@code consumer.} and {@code admin.}, for its connectors' clients
     * (a worker does not pass its own security settings to them).
     */
    public Map<String, String> connectWorker(String bootstrapServers, Map<String, String> own) {
        refuseSecurityKeys(own.keySet());
        Map<String, String> p = new LinkedHashMap<>(own);
        p.put(BOOTSTRAP_SERVERS, requireBootstrap(bootstrapServers));
        // With SASL the password stays in its file: the worker resolves ${dir:…} itself, for its own configuration and
        // for every connector's (connectorSecurity), so it is written neither into the worker's properties nor into
        // the config topic where connector configurations live.
        Map<String, String> referenced = connectSecurity();
        if (credentialsDir != null) {
            p.put("config.providers", "dir");
            p.put("config.providers.dir.class", DIRECTORY_PROVIDER);
            p.put("config.providers.dir.param.allowed.paths", credentialsDir.toString());
        }
        p.putAll(referenced);
        for (String prefix : new String[] {"producer.", "consumer.", "admin."}) {
            referenced.forEach((k, v) -> p.put(prefix + k, v));
        }
        return p;
    }

    /**
     * The security settings for a connector's own Kafka clients (the Iceberg sink's {@code iceberg.kafka.*}), with
     * {@code prefix}: the password as a reference the worker of {@link #connectWorker} resolves.
     */
    public Map<String, String> connectorSecurity(String prefix) {
        Map<String, String> prefixed = new LinkedHashMap<>();
        connectSecurity().forEach((k, v) -> prefixed.put(prefix + k, v));
        return prefixed;
    }

    private Map<String, String> connectSecurity() {
        return credentialsDir == null ? security
                : securityReferencingPassword("${dir:" + credentialsDir + ":" + KafkaCredentials.file(credentialsDir, principal.userName()).getFileName() + "}");
    }

    private Map<String, Object> client(String bootstrapServers, Map<?, ?> own) {
        Map<String, Object> p = new LinkedHashMap<>();
        own.forEach((k, v) -> p.put((String) k, v));
        refuseSecurityKeys(p.keySet());
        p.put(BOOTSTRAP_SERVERS, requireBootstrap(bootstrapServers));
        p.putAll(security);
        return p;
    }

    private static String requireBootstrap(String bootstrapServers) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("Kafka bootstrap servers are required");
        }
        return bootstrapServers;
    }

    /**
     * Whether {@code key} is a security setting, bare or behind a client prefix ({@code consumer.}, {@code producer.},
     * ...): for code that applies operator overrides after this class's settings and must refuse these.
     */
    public static boolean isSecuritySetting(String key) {
        return isSecurityKey(unprefixed(key));
    }

    /** Security belongs here only: a client that set its own would keep it when this class changes. */
    private static void refuseSecurityKeys(Set<String> keys) {
        for (String key : keys) {
            if (isSecuritySetting(key)) {
                throw new IllegalArgumentException(key + " is set by KafkaClientSettings, not by a client");
            }
        }
    }

    private static final String[] CLIENT_PREFIXES = {"main.consumer.", "restore.consumer.", "global.consumer.", "producer.",
            "consumer.", "admin."};

    private static String unprefixed(String key) {
        for (String prefix : CLIENT_PREFIXES) {
            if (key.startsWith(prefix)) {
                return key.substring(prefix.length());
            }
        }
        return key;
    }

    private static boolean isSecurityKey(String key) {
        return key.equals(SECURITY_PROTOCOL) || key.startsWith("sasl.") || key.startsWith("ssl.");
    }

    @Override
    public String toString() {
        // Never the JAAS line: it holds the password.
        return "KafkaClientSettings[" + principal.userName() + ", " + security.get(SECURITY_PROTOCOL) + "]";
    }
}
