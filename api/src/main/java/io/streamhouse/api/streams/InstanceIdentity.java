package io.streamhouse.api.streams;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * This api instance's stable identity, {@code streamhouse.instance-id}, and with it static group membership for the
 * decision application ({@code kafka-streams.consumer.group.instance.id}; the serving application reads the same id).
 * A restarted instance, even after a {@code kill -9}, rejoins both consumer groups under its old member's name and
 * takes its tasks back at once, instead of waiting for the dead member's session to time out.
 *
 * <p>The id is {@code STREAMHOUSE_INSTANCE_ID} when given (a pod name); otherwise derived from the host name and the
 * absolute state directory: the same after every restart of the same instance, distinct for two instances (Kafka
 * Streams locks a state directory, so two live instances never share one on a host). Two instances must never share
 * an id: the broker fences the older member. {@code streamhouse.static-membership=false} leaves the groups dynamic.
 * A low ordinal: anything set in application.properties or the environment wins; what Quarkus recorded at build time
 * (the build's own derived id, at ordinal 0) does not count as set.
 */
public class InstanceIdentity implements ConfigSourceFactory {
    public static final String INSTANCE_ID = "streamhouse.instance-id";
    public static final String STATIC_MEMBERSHIP = "streamhouse.static-membership";
    public static final String DECISION_GROUP_INSTANCE_ID = "kafka-streams.consumer.group.instance.id";
    static final String STATE_DIR = "kafka-streams.state.dir";
    static final String DEFAULT_STATE_DIR = "target/kafka-streams-state";
    static final int ORDINAL = 50;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String id = value(context, INSTANCE_ID);
        if (id == null) {
            String stateDir = env("STREAMHOUSE_STATE_DIR");
            if (stateDir == null) {
                stateDir = value(context, STATE_DIR);
            }
            id = derive(hostName(), Path.of(stateDir == null ? DEFAULT_STATE_DIR : stateDir));
        }
        String staticMembership = value(context, STATIC_MEMBERSHIP);
        Map<String, String> props = new java.util.HashMap<>();
        props.put(INSTANCE_ID, id);
        if (staticMembership == null || Boolean.parseBoolean(staticMembership)) {
            props.put(DECISION_GROUP_INSTANCE_ID, id);
        }
        return List.of(new PropertiesConfigSource(props, "streamhouse-instance-identity", ORDINAL));
    }

    /** {@code api-} and 12 hex digits of SHA-256 over host and absolute, normalized state directory. */
    public static String derive(String host, Path stateDir) {
        String key = host + "|" + stateDir.toAbsolutePath().normalize();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "api-" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /**
     * The environment first: this factory's context sees neither {@code STREAMHOUSE_*} variables nor the expanded
     * {@code ${STREAMHOUSE_STATE_DIR:...}}, so without it the id would come from the default state directory and
     * {@code STREAMHOUSE_STATIC_MEMBERSHIP=false} would not reach the decision application.
     */
    private static String value(ConfigSourceContext context, String name) {
        String fromEnv = env(name.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
        if (fromEnv != null) {
            return fromEnv;
        }
        ConfigValue v = context.getValue(name);
        // At or below this factory's ordinal is no one's choice: Quarkus records what this factory derived during the build
        // ("Runtime Values", ordinal 0), and taking that back would give every instance the build's id.
        return v == null || v.getValue() == null || v.getValue().isBlank() || v.getValue().contains("${")
                || v.getConfigSourceOrdinal() <= ORDINAL ? null : v.getValue().trim();
    }

    private static String env(String variable) {
        String v = System.getenv(variable);
        return v == null || v.isBlank() ? null : v.trim();
    }
}
