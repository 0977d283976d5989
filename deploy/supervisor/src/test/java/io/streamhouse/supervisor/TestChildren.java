package io.streamhouse.supervisor;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Specs for {@link TestChild} in a fresh directory under target/. */
final class TestChildren {

    static ChildSpec spec(String name, Readiness readiness, String... options) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "it-data").toAbsolutePath()), name + "-");
        List<String> command = new ArrayList<>(List.of(ChildSpec.javaBin(), "-Xmx32m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-XX:-UsePerfData", "-cp", testClasses(), TestChild.class.getName()));
        command.addAll(List.of(options));
        return new ChildSpec(name, command, Map.of(), dir, dir.resolve(name + ".log"), readiness,
                Duration.ofSeconds(30), Duration.ofSeconds(2));
    }

    static ChildSpec spec(String name, String... options) throws Exception {
        return spec(name, new Readiness.StdoutLine(TestChild.READY), options);
    }

    private static String testClasses() throws URISyntaxException {
        return Path.of(TestChild.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private TestChildren() {
    }
}
