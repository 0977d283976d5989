package io.streamhouse.connect;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to start a {@link ConnectProcess}.
 *
 * @param dataDir          where the worker writes its config file and log
 * @param bootstrapServers the Kafka cluster the worker stores its configs, offsets and status in
 * @param registryUrl      schema registry base URL for the wire-format converter
 * @param restPort         REST port on 127.0.0.1; 0 picks a free one
 * @param maxHeap          {@code -Xmx} of the child JVM
 * @param groupId          the Connect cluster's group id; its internal topics are named after it
 */
public record ConnectOptions(Path dataDir, String bootstrapServers, String registryUrl, int restPort, String maxHeap,
                             String groupId) {

    public static final String DEFAULT_MAX_HEAP = "256m";
    public static final String DEFAULT_GROUP_ID = "streamhouse-connect";

    public ConnectOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(registryUrl, "registryUrl");
        dataDir = dataDir.toAbsolutePath().normalize();
        maxHeap = maxHeap == null ? DEFAULT_MAX_HEAP : maxHeap;
        groupId = groupId == null ? DEFAULT_GROUP_ID : groupId;
        if (!maxHeap.matches("[0-9]+[mMgG]")) {
            throw new IllegalArgumentException("maxHeap must look like 256m or 1g, was " + maxHeap);
        }
        if (restPort < 0 || restPort > 65_535) {
            throw new IllegalArgumentException("restPort must be 0..65535, was " + restPort);
        }
        if (!groupId.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("groupId must be lower-case letters, digits and '-', was " + groupId);
        }
    }

    public static ConnectOptions of(Path dataDir, String bootstrapServers, String registryUrl) {
        return new ConnectOptions(dataDir, bootstrapServers, registryUrl, 0, DEFAULT_MAX_HEAP, DEFAULT_GROUP_ID);
    }

    public String configTopic() {
        return groupId + ".configs";
    }

    public String offsetTopic() {
        return groupId + ".offsets";
    }

    public String statusTopic() {
        return groupId + ".status";
    }
}
