package io.streamhouse.domain.house;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test's name tells a fast test from a slow one: a {@code *Test} class (surefire, every build's first phase) never
 * boots Quarkus, the shared platform, a broker or the launcher's stack; a class that does is a {@code *IT} (failsafe).
 */
class TestNamesTest {
    private static final Pattern BOOTS = Pattern.compile(
            "@QuarkusTest\\b|@QuarkusTestResource|@WithStreamhousePlatform|SharedPlatform\\.get\\(|EmbeddedPlatform\\.start\\("
                    + "|BrokerProcess\\.start\\(|LauncherJvm\\.up\\(|Launcher\\.up\\(");

    @Test
    void noUnitTestBootsQuarkusAPlatformOrABroker() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> tests;
        try (Stream<Path> walk = Files.walk(root)) {
            tests = walk.filter(p -> p.toString().contains("/src/test/java/") && !p.toString().contains("/target/")
                    && p.getFileName().toString().endsWith("Test.java")
                    && !p.getFileName().toString().equals("TestNamesTest.java")).toList();
        }
        List<String> booting = new ArrayList<>();
        for (Path test : tests) {
            if (BOOTS.matcher(Files.readString(test)).find()) {
                booting.add(root.relativize(test).toString());
            }
        }
        assertThat(tests).as("unit tests found").hasSizeGreaterThan(100);
        assertThat(booting).as("*Test classes that boot Quarkus, a platform or a broker (name them *IT)").isEmpty();
    }
}
