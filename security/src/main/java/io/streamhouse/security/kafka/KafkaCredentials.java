package io.streamhouse.security.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Kafka passwords of one stack: a directory with one {@code <user>.password} file per user, each 32 random bytes in
 * hex (the storage tool's {@code --add-scram} splits on commas and JAAS quotes values, so hex needs no escaping) and no
 * newline (Kafka's {@code DirectoryConfigProvider} hands a file's bytes over as they are), readable by the owner only. The broker writes them when it formats its storage and registers each as a SCRAM-SHA-512
 * credential; every client reads its own through {@link KafkaClientSettings}.
 *
 * <p>Guarantees: an existing password file is never rewritten (the broker's credential would no longer match); a file
 * is created atomically with its final content, so a reader never sees half a password.
 */
public final class KafkaCredentials {

    /** The password of the controller listener (SASL/PLAIN, configured in the broker's JAAS, no SCRAM credential). */
    public static final String CONTROLLER_USER = "controller";
    private static final SecureRandom RANDOM = new SecureRandom();

    private KafkaCredentials() {
    }

    /** {@code dir/<user>.password}. */
    public static Path file(Path dir, String user) {
        return dir.resolve(user + ".password");
    }

    /**
     * The password of {@code user}, created if it has none yet.
     *
     * @return the password, from the file that holds it now
     */
    public static String ensure(Path dir, String user) {
        Path file = file(dir, user);
        if (!Files.isRegularFile(file)) {
            try {
                Files.createDirectories(dir);
                trySetOwnerOnly(dir, "rwx------");
                Path tmp = Files.createTempFile(dir, "." + user, ".tmp");
                trySetOwnerOnly(tmp, "rw-------");
                byte[] secret = new byte[32];
                RANDOM.nextBytes(secret);
                Files.writeString(tmp, HexFormat.of().formatHex(secret), StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
                try {
                    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException raced) {
                    Files.deleteIfExists(tmp);
                }
                // On POSIX, an atomic move replaces a file created in between: the last writer wins, and every reader reads
                // after this point. Only one process (the broker) creates passwords, so there is no such race in practice.
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write a Kafka password into " + dir, e);
            }
        }
        return KafkaClientSettings.readPassword(file);
    }

    /** Every {@code user}'s password, created where missing, in the order given. */
    public static Map<String, String> ensureAll(Path dir, Iterable<String> users) {
        Map<String, String> passwords = new LinkedHashMap<>();
        for (String user : users) {
            passwords.put(user, ensure(dir, user));
        }
        return passwords;
    }

    private static void trySetOwnerOnly(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException notPosix) {
            // Not a POSIX file system: the directory's own permissions apply.
        }
    }
}
