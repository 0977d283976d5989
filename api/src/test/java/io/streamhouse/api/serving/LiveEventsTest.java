package io.streamhouse.api.serving;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The overflow event tells a subscriber where to re-read what it missed, or that nothing lists it. */
class LiveEventsTest {

    @Test
    void anOverflowNamesTheRouteToReReadOrNone() {
        assertThat(LiveEvents.overflow(1024, "alerts", "/v1/alerts")).containsEntry("buffered", 1024)
                .containsEntry("reread", "/v1/alerts")
                .containsEntry("detail", "this subscriber fell more than 1024 alerts behind and its stream ends here; "
                        + "read the missed ones from /v1/alerts and subscribe again");
        assertThat(LiveEvents.overflow(1024, "decisions", null)).containsEntry("reread", null)
                .containsEntry("detail", "this subscriber fell more than 1024 decisions behind and its stream ends here; subscribe again");
    }
}
