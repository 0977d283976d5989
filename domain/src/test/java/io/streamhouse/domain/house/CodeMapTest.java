package io.streamhouse.domain.house;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader finds a rule, a pattern, a topology, an endpoint, a drill check or a command-line entry point from class
 * names alone (docs/architecture.md, "Finding the code"): each kind of class is recognised by what it is in the
 * source, and its name must end as the map says.
 */
class CodeMapTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** What a class is (found in its source) → how its name ends. */
    private static final Map<Pattern, Pattern> KINDS = Map.of(
            Pattern.compile("\\bclass \\w+ implements Rule\\b"), Pattern.compile("Rule"),
            Pattern.compile("\\bclass \\w+ implements SubjectPattern<"), Pattern.compile("Pattern"),
            Pattern.compile("\\bclass \\w+ implements Check<"), Pattern.compile("Check"),
            Pattern.compile("new StreamsBuilder\\(\\)"), Pattern.compile("Topology"),
            Pattern.compile("(?m)^@Path\\("), Pattern.compile("Resource"),
            Pattern.compile("public static void main\\(String\\[\\] args\\)"),
            Pattern.compile("Cli|Main|Benchmark|Launcher|Server|ExitWithParent"));

    @Test
    void everyRulePatternTopologyEndpointCheckAndEntryPointIsNamedForWhatItIs() throws IOException {
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(ROOT)) {
            sources = walk.filter(p -> p.toString().contains("/src/main/java/") && !p.toString().contains("/target/")
                    && p.toString().endsWith(".java")).toList();
        }
        List<String> misnamed = new ArrayList<>();
        int recognised = 0;
        for (Path source : sources) {
            String text = Files.readString(source);
            String name = source.getFileName().toString().replace(".java", "");
            for (var kind : KINDS.entrySet()) {
                if (kind.getKey().matcher(text).find()) {
                    recognised++;
                    if (!Pattern.compile(".*(" + kind.getValue().pattern() + ")").matcher(name).matches()) {
                        misnamed.add(ROOT.relativize(source) + " (" + kind.getKey().pattern() + " → *"
                                + kind.getValue().pattern() + ")");
                    }
                }
            }
        }
        assertThat(recognised).as("rules, patterns, checks, topologies, endpoints and entry points found").isGreaterThan(40);
        assertThat(misnamed).as("classes not named for what they are").isEmpty();
    }
}
