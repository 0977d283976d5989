package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LaunchOptionsTest {

    @Test
    void everythingRunsUnlessLeftOut() {
        LaunchOptions all = LaunchOptions.parse(new String[]{"up"});
        assertThat(all.runs(LaunchOptions.Part.CDC)).isTrue();
        assertThat(all.runs(LaunchOptions.Part.CEP)).isTrue();
        assertThat(all.runs(LaunchOptions.Part.SQL)).isTrue();
        assertThat(all.runs(LaunchOptions.Part.LAKE)).isTrue();

        LaunchOptions servingOnly = LaunchOptions.parse(new String[]{"up", "--without", "cdc,CEP", "--no-demo"});
        assertThat(servingOnly.runs(LaunchOptions.Part.CDC)).isFalse();
        assertThat(servingOnly.runs(LaunchOptions.Part.CEP)).isFalse();

        LaunchOptions noCep = LaunchOptions.parse(new String[]{"up", "--without", "cep"});
        assertThat(noCep.runs(LaunchOptions.Part.CDC)).isTrue();
        assertThat(noCep.runs(LaunchOptions.Part.CEP)).isFalse();

        LaunchOptions noSql = LaunchOptions.parse(new String[]{"up", "--without", "sql"});
        assertThat(noSql.runs(LaunchOptions.Part.SQL)).isFalse();
        assertThat(noSql.runs(LaunchOptions.Part.CEP)).isTrue();
        assertThat(noCep.runs(LaunchOptions.Part.LAKE)).isTrue();

        LaunchOptions noLake = LaunchOptions.parse(new String[]{"up", "--without", "lake"});
        assertThat(noLake.runs(LaunchOptions.Part.LAKE)).isFalse();
        assertThat(noLake.runs(LaunchOptions.Part.CDC)).isTrue();
    }

    @Test
    void theDemoCommandTakesACountAndASeed() {
        LaunchOptions demo = LaunchOptions.parse(new String[]{"demo", "--demo", "30", "--seed", "7", "--data", "/tmp/sh"});
        assertThat(demo.command()).isEqualTo("demo");
        assertThat(demo.demoCount()).isEqualTo(30);
        assertThat(demo.seed()).isEqualTo(7);
        LaunchOptions defaults = LaunchOptions.parse(new String[]{"demo"});
        assertThat(defaults.demoCount()).isEqualTo(50);
        assertThat(defaults.seed()).isEqualTo(42);
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"demo", "--demo", "0"})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnknownPartIsNamed() {
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--without", "cep,kafka"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'kafka'");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--without"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--without needs a value");
    }

    @Test
    void controlCommandsNameTheirComponent() {
        LaunchOptions kill = LaunchOptions.parse(new String[]{"kill", "api", "--data", "/tmp/x"});
        assertThat(kill.command()).isEqualTo("kill");
        assertThat(kill.component()).isEqualTo("api");
        assertThat(kill.data().toString()).isEqualTo("/tmp/x");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"restart"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("restart needs a component");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"stop", "--data", "/tmp/x"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stop needs a component");
        assertThat(LaunchOptions.parse(new String[]{"status"}).component()).isNull();
    }

    @Test
    void maintenanceIsOnByDefaultAndItsSettingsAreChecked() {
        assertThat(LaunchOptions.parse(new String[]{"up"}).maintenance())
                .isEqualTo(io.streamhouse.lakequery.MaintenanceSettings.DEFAULTS);
        LaunchOptions custom = LaunchOptions.parse(new String[]{"up", "--maintenance-interval", "PT1M", "--snapshot-max-age",
                "PT2M", "--retain-last", "3", "--target-file-size", "67108864", "--orphan-min-age", "PT48H"});
        assertThat(custom.maintenance().enabled()).isTrue();
        assertThat(custom.maintenance().interval()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThat(custom.maintenance().retainLast()).isEqualTo(3);
        assertThat(custom.maintenance().orphanMinAge()).isEqualTo(java.time.Duration.ofHours(48));
        assertThat(LaunchOptions.parse(new String[]{"up", "--maintenance", "off"}).maintenance().enabled()).isFalse();
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--orphan-min-age", "PT5S"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orphan min age must be at least 10 min");
    }

    @Test
    void oneApiInstanceUnlessAskedAndEachFurtherOneHasItsOwnNamePortAndState() {
        LaunchOptions one = LaunchOptions.parse(new String[]{"up"});
        assertThat(one.apiInstances()).isEqualTo(1);
        assertThat(one.apiPort(1)).isEqualTo(8082);

        LaunchOptions three = LaunchOptions.parse(new String[]{"up", "--api-instances", "3", "--api-port", "28082"});
        assertThat(three.apiInstances()).isEqualTo(3);
        assertThat(List.of(three.apiPort(1), three.apiPort(2), three.apiPort(3))).containsExactly(28082, 28083, 28084);
        assertThat(List.of(LaunchOptions.apiComponent(1), LaunchOptions.apiComponent(2), LaunchOptions.apiComponent(3)))
                .containsExactly("api", "api-2", "api-3");
        assertThat(List.of(LaunchOptions.apiStateDir(1), LaunchOptions.apiStateDir(2))).containsExactly("api-state", "api-state-2");

        LaunchOptions free = LaunchOptions.parse(new String[]{"up", "--api-instances", "2", "--api-port", "0"});
        assertThat(free.apiPort(2)).as("0 stays 0: each instance gets a free port").isZero();
    }

    @Test
    void aBadApiInstanceCountIsNamed() {
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--api-instances", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--api-instances must be between 1 and 3, not 0");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--api-instances", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--api-instances must be between 1 and 3, not 4");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--api-instances", "two"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--api-instances takes a whole number, not 'two'");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--api-instances"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--api-instances needs a value");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--api-instances", "3", "--api-port", "65534"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no room for 3 api instances");
    }

    @Test
    void ingestInstancesAreCountedNamedAndKeptApartOnDisk() {
        assertThat(LaunchOptions.parse(new String[]{"up"}).ingestInstances()).isEqualTo(1);
        LaunchOptions three = LaunchOptions.parse(new String[]{"up", "--ingest-instances", "3"});
        assertThat(three.ingestInstances()).isEqualTo(3);
        assertThat(three.apiInstances()).isEqualTo(1);
        assertThat(List.of(LaunchOptions.ingestComponent(1), LaunchOptions.ingestComponent(2), LaunchOptions.ingestComponent(3)))
                .containsExactly("ingest", "ingest-2", "ingest-3");
        assertThat(List.of(LaunchOptions.ingestCdcStateDir(1), LaunchOptions.ingestCdcStateDir(2)))
                .containsExactly("ingest-cdc-state", "ingest-cdc-state-2");
        // The first instance reads partition 0 (the default); each further one a partition of its own.
        assertThat(List.of(LaunchOptions.ingestReplyPartition(1), LaunchOptions.ingestReplyPartition(2), LaunchOptions.ingestReplyPartition(3)))
                .containsExactly(0, 1, 2);
        // Several instances read their own replies unless told otherwise; one reads every decision (the app's default).
        assertThat(LaunchOptions.authorizeReplies(2, null)).contains("partition");
        assertThat(LaunchOptions.authorizeReplies(3, "all")).contains("all");
        assertThat(LaunchOptions.authorizeReplies(1, null)).isEmpty();
        assertThat(LaunchOptions.authorizeReplies(1, "partition")).contains("partition");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--ingest-instances", "4"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--ingest-instances must be between 1 and 3, not 4");
        assertThatThrownBy(() -> LaunchOptions.parse(new String[]{"up", "--ingest-instances", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--ingest-instances must be between 1 and 3, not 0");
    }
}
