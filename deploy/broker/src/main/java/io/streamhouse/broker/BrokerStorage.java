package io.streamhouse.broker;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a broker's data directory says about how it was formatted. JDK only, like {@link BrokerProcess}: the parent
 * checks a directory before it starts the child, so the user reads the reason rather than a child's log tail.
 */
public final class BrokerStorage {

    /** Written beside {@code kraft/} once the storage is formatted with SCRAM credentials. */
    static final String SCRAM_MARKER = "scram-formatted";

    /** What a user reads when an old data directory meets the authenticated broker. */
    public static final String FORMATTED_WITHOUT_CREDENTIALS = "this Kafka storage was formatted before the broker required "
            + "SASL/SCRAM logins (issue #19) and holds no Kafka users: start once with ./streamhouse up --fresh, which deletes "
            + "the topics and the stack's state and formats the storage with one user per service, or keep the data without "
            + "logins (STREAMHOUSE_KAFKA_SECURITY_PROTOCOL=PLAINTEXT); docs/run.md, \"Upgrading a data directory\"";

    private BrokerStorage() {
    }

    /**
     * A storage formatted without SCRAM credentials has no user the clients could log in as (the storage tool is the
     * only way to add the first ones in KRaft, KIP-900): starting it with authentication would leave every client out.
     *
     * @param dataDir  the broker's data directory
     * @param kraftDir its Kafka log directory ({@code dataDir/kraft})
     * @throws IllegalStateException with {@link #FORMATTED_WITHOUT_CREDENTIALS}
     */
    public static void refuseStorageWithoutCredentials(Path dataDir, Path kraftDir) {
        if (Files.exists(kraftDir.resolve("meta.properties")) && !Files.exists(dataDir.resolve(SCRAM_MARKER))) {
            throw new IllegalStateException(FORMATTED_WITHOUT_CREDENTIALS + " (" + kraftDir + ")");
        }
    }
}
