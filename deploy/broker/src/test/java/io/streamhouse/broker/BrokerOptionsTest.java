package io.streamhouse.broker;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BrokerOptionsTest {

    @Test
    void rejectsValuesTheChildJvmWouldOnlyFailOnLater() {
        Path dir = Path.of("target", "x");
        assertThatThrownBy(() -> new BrokerOptions(dir, 70_000, false, "256m")).hasMessageContaining("port");
        assertThatThrownBy(() -> new BrokerOptions(dir, -1, false, "256m")).hasMessageContaining("port");
        assertThatThrownBy(() -> new BrokerOptions(dir, 0, false, "-Xmx256m")).hasMessageContaining("maxHeap");
        assertThatThrownBy(() -> new BrokerOptions(null, 0, false, "256m")).isInstanceOf(NullPointerException.class);
    }

    @Test
    void defaultsTheHeapAndMakesTheDirectoryAbsolute() {
        BrokerOptions options = new BrokerOptions(Path.of("target", "..", "target", "x"), 0, false, null);
        assertThat(options.maxHeap()).isEqualTo(BrokerOptions.DEFAULT_MAX_HEAP);
        assertThat(options.dataDir()).isAbsolute().isEqualTo(Path.of("target", "x").toAbsolutePath());
    }

    @Test
    void clusterIdsNeverLookLikeAnOption() {
        // About 1 in 64 random ids starts with '-' before the retry; 5000 draws would hit that ~78 times.
        assertThat(IntStream.range(0, 5_000).mapToObj(i -> BrokerMain.newClusterId()))
                .noneMatch(id -> id.startsWith("-"))
                .allMatch(id -> id.length() == 22);
    }

    @Test
    void childClasspathHasTheServerTheBindingAndThisModulesCode() {
        List<String> entries = Arrays.asList(BrokerProcess.childClasspath().split(java.io.File.pathSeparator));
        assertThat(entries).anyMatch(e -> e.contains("kafka_2.13-"))
                .anyMatch(e -> e.contains("slf4j-simple-"))
                .noneMatch(e -> e.contains("junit"));
        Path ownCode = Path.of(entries.get(0));
        assertThat(Files.exists(ownCode.resolve(BrokerMain.class.getName().replace('.', '/') + ".class"))
                || ownCode.toString().endsWith(".jar")).isTrue();
    }
}
