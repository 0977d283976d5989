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
 * Code says what is true now: the history of a change lives in its commit message, dated measurements in
 * {@code docs/benchmarks-history.md}. No main source file of any module names a work session, and no comment carries a
 * date (a date inside {@code {@code …}}, an example of a format, is allowed).
 */
class PresentTenseCommentsTest {
    private static final Pattern SESSION = Pattern.compile("(?i)\\bsession \\d+");
    private static final Pattern COMMENT_LINE = Pattern.compile("^\\s*(//|\\*|/\\*)|\\s//\\s");
    private static final Pattern DATE = Pattern.compile("\\b20\\d\\d-[01]\\d-[0-3]\\d\\b");
    private static final Pattern CODE_SPAN = Pattern.compile("\\{@code [^}]*}");

    @Test
    void noMainSourceNamesASessionOrDatesAComment() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        assertThat(root.resolve("domain/src/main")).as("run from the domain module of the repository").isDirectory();
        List<String> found = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().contains("/src/main/") && !p.toString().contains("/node_modules/")
                            && !p.toString().contains("/target/"))
                    .filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".xml")
                            || p.toString().endsWith(".properties") || p.toString().endsWith(".conf"))
                    .toList();
        }
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                boolean comment = COMMENT_LINE.matcher(line).find();
                if (SESSION.matcher(line).find()
                        || comment && DATE.matcher(CODE_SPAN.matcher(line).replaceAll("")).find()) {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        assertThat(files).as("main sources found").hasSizeGreaterThan(100);
        assertThat(found).as("session numbers or dates in main sources").isEmpty();
    }
}
