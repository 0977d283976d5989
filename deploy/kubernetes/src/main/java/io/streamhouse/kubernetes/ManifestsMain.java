package io.streamhouse.kubernetes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes the generated manifests ({@link ManifestGenerator#files()}) into a directory, {@code deploy/kubernetes/manifests}
 * by default: run it after a change to the topic catalog or to {@code KafkaAcls}, and commit what it wrote.
 * Usage: {@code ManifestsMain [directory]}.
 */
public final class ManifestsMain {

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "deploy/kubernetes/manifests");
        if (!Files.isDirectory(dir)) {
            System.err.println("streamhouse-kubernetes: " + dir.toAbsolutePath() + " is not a directory");
            System.exit(2);
            return;
        }
        for (Map.Entry<String, String> file : ManifestGenerator.files().entrySet()) {
            Path target = dir.resolve(file.getKey());
            String before = Files.exists(target) ? Files.readString(target, StandardCharsets.UTF_8) : null;
            Files.writeString(target, file.getValue(), StandardCharsets.UTF_8);
            System.out.println((file.getValue().equals(before) ? "unchanged " : "wrote ") + target);
        }
    }

    private ManifestsMain() {
    }
}
