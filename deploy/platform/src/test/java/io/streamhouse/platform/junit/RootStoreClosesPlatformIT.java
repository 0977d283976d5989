package io.streamhouse.platform.junit;

import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.platform.testkit.engine.EngineTestKit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The end of a JUnit run closes the shared platform (it sits in the root store as an AutoCloseable), so a test JVM
 * that is reused by the build tool does not keep a broker and a postmaster running until it exits.
 *
 * <p>Runs a nested JUnit engine run in this JVM; that run's end closes the shared platform. Ordered last (see
 * junit-platform.properties) so the other classes keep theirs; if it did run earlier, the extension would start a
 * new platform for them (slower, still correct).
 */
@Order(Integer.MAX_VALUE)
@Isolated("it closes the shared platform")
class RootStoreClosesPlatformIT {

    private static final AtomicReference<EmbeddedPlatform> SEEN = new AtomicReference<>();

    @Test
    void theEndOfARunClosesThePlatformAndStopsItsProcesses() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(UsesThePlatform.class))
                .configurationParameter("junit.jupiter.testclass.order.default", ClassOrderer.Default.class.getName())
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.succeeded(1).failed(0));

        EmbeddedPlatform platform = SEEN.get();
        assertThat(platform).isNotNull();
        assertThat(platform.isClosed()).isTrue();
        List<ProcessHandle> processes = platform.processes();
        await().atMost(Duration.ofSeconds(20)).until(() -> processes.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(SharedPlatform.get()).as("a later get() starts over").isNotSameAs(platform).satisfies(p -> {
            assertThat(p.isClosed()).isFalse();
            p.close();
        });
    }

    /** Run only by the nested engine above (static nested classes are not picked up on their own). */
    @WithStreamhousePlatform
    static class UsesThePlatform {
        @Test
        void usesIt(EmbeddedPlatform platform) {
            SEEN.set(platform);
            assertThat(platform.isClosed()).isFalse();
        }
    }
}
