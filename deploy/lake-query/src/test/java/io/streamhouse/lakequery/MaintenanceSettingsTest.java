package io.streamhouse.lakequery;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MaintenanceSettingsTest {

    @Test
    void theChildReadsBackWhatTheParentWrites() {
        MaintenanceSettings s = new MaintenanceSettings(false, Duration.ofMinutes(3), Duration.ofMinutes(30), 4,
                64L * 1024 * 1024, Duration.ofHours(2));
        assertThat(MaintenanceSettings.fromArgs(parse(s.toArgs()))).isEqualTo(s);
        assertThat(MaintenanceSettings.fromArgs(Map.of())).isEqualTo(MaintenanceSettings.DEFAULTS);
    }

    @Test
    void anOrphanAgeNearTheSinksCommitIntervalIsRefused() {
        assertThatThrownBy(() -> MaintenanceSettings.fromArgs(Map.of("orphan-min-age", "PT5S")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orphan min age must be at least 10 min");
    }

    @Test
    void badValuesNameTheirOption() {
        assertThatThrownBy(() -> MaintenanceSettings.fromArgs(Map.of("maintenance-interval", "10m")))
                .hasMessageContaining("--maintenance-interval takes an ISO-8601 duration");
        assertThatThrownBy(() -> MaintenanceSettings.fromArgs(Map.of("retain-last", "0"))).hasMessageContaining("retain-last");
        assertThatThrownBy(() -> MaintenanceSettings.fromArgs(Map.of("maintenance", "yes"))).hasMessageContaining("--maintenance takes on or off");
        assertThatThrownBy(() -> MaintenanceSettings.fromArgs(Map.of("target-file-size", "big"))).hasMessageContaining("--target-file-size");
    }

    private static Map<String, String> parse(List<String> args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            out.put(args.get(i).substring(2), args.get(i + 1));
        }
        return out;
    }
}
