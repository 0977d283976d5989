package io.streamhouse.api.serving;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The token this instance sends when it forwards a lookup to another api instance (role {@code internal}): read from
 * {@code streamhouse.serving.internal-token-file} and read again whenever the file changes, so a re-issued token
 * (a new {@code up}, a rotated key) is picked up without a restart. Empty when no file is configured or readable.
 */
final class InternalToken implements Supplier<Optional<String>> {
    private final Optional<Path> file;
    private FileTime readAt;
    private Optional<String> token = Optional.empty();

    InternalToken(Optional<Path> file) {
        this.file = file;
    }

    @Override
    public synchronized Optional<String> get() {
        if (file.isEmpty()) {
            return Optional.empty();
        }
        try {
            FileTime modified = Files.getLastModifiedTime(file.get());
            if (!modified.equals(readAt)) {
                String read = Files.readString(file.get()).trim();
                token = read.isEmpty() ? Optional.empty() : Optional.of(read);
                readAt = modified;
            }
        } catch (IOException e) {
            token = Optional.empty();
            readAt = null;
        }
        return token;
    }
}
