package io.streamhouse.platform.junit;

import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** One platform per JVM, whichever way a test asks for it. */
@WithStreamhousePlatform
class PlatformExtensionIT {

    private final EmbeddedPlatform fromConstructor;

    PlatformExtensionIT(EmbeddedPlatform platform) {
        this.fromConstructor = platform;
    }

    @Test
    void constructorMethodAndStaticAccessorSeeTheSameRunningPlatform(EmbeddedPlatform fromMethod) {
        assertThat(fromMethod).isSameAs(fromConstructor).isSameAs(SharedPlatform.get());
        assertThat(fromMethod.isClosed()).isFalse();
        assertThat(fromMethod.processes()).isNotEmpty().allMatch(ProcessHandle::isAlive);
        assertThat(fromMethod.startTimes()).containsKeys("kafka broker", "total");
    }

    @Test
    void thePlatformDatabaseHasTheStreamhouseSchema(EmbeddedPlatform platform) throws Exception {
        try (Connection c = platform.postgres().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'streamhouse'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(1);
        }
    }
}
