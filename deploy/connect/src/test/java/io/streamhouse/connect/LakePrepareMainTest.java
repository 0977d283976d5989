package io.streamhouse.connect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LakePrepareMainTest {

    @Test
    void theThreeArgumentsAreRequiredAndTheControlTopicIsTheLakes() {
        var a = LakePrepareMain.parse(new String[]{"--catalog", "/etc/lake/catalog.properties", "--bootstrap", "kafka:9092",
                "--control-topic", "streamhouse.lake.control.streamhouse"});
        assertThat(a).isEqualTo(new LakePrepareMain.Arguments(Path.of("/etc/lake/catalog.properties"), "kafka:9092",
                "streamhouse.lake.control.streamhouse"));

        assertThatThrownBy(() -> LakePrepareMain.parse(new String[]{"--catalog", "c", "--bootstrap", "k:9092"}))
                .hasMessageStartingWith("--control-topic is missing");
        assertThatThrownBy(() -> LakePrepareMain.parse(new String[]{"--catalog", "c", "--bootstrap"}))
                .hasMessageStartingWith("--bootstrap needs a value");
        assertThatThrownBy(() -> LakePrepareMain.parse(new String[]{"--catalogue", "c"}))
                .hasMessageStartingWith("unknown argument --catalogue");
        assertThatThrownBy(() -> LakePrepareMain.parse(new String[]{"--catalog", "c", "--bootstrap", "k:9092", "--control-topic", "control"}))
                .hasMessageStartingWith("--control-topic must start with streamhouse.lake.control., was control");
    }

    @Test
    void theCatalogsPasswordComesFromTheEnvironmentNeverFromTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("catalog.properties");
        Files.writeString(file, "catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog\nuri=jdbc:postgresql://db:5432/lake\n");

        assertThat(LakePrepareMain.catalogProperties(file, Map.of("LAKE_CATALOG_PASSWORD", "s3cret")::get))
                .containsEntry("jdbc.password", "s3cret").containsEntry("uri", "jdbc:postgresql://db:5432/lake");
        assertThat(LakePrepareMain.catalogProperties(file, name -> null)).doesNotContainKey("jdbc.password");

        Files.writeString(file, "uri=jdbc:postgresql://db:5432/lake\njdbc.password=inline\n");
        assertThatThrownBy(() -> LakePrepareMain.catalogProperties(file, name -> null))
                .hasMessageContaining("holds jdbc.password: give it in LAKE_CATALOG_PASSWORD instead");
    }
}
