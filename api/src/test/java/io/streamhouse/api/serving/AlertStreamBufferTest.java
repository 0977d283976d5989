package io.streamhouse.api.serving;

import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue #21 item 8: a burst of alerts never ends a subscriber's stream unannounced, and a slow one does not hold others back. */
class AlertStreamBufferTest {

    private static Views.FeedAlertView alert(int i) {
        return new Views.FeedAlertView("a-" + i, "PARCEL_SLA_BREACH", "PARCEL", "HIGH", "PARCEL", "P-" + i, "parcel-sla", 1, "late", null,
                List.of(), java.util.Map.of(), "ACTIVE");
    }

    /** A subscriber of its own stream over {@code live} that has requested {@code requested} items so far. */
    private static AssertSubscriber<TopicBroadcaster.StreamItem<Views.FeedAlertView>> subscriber(BroadcastProcessor<Views.FeedAlertView> live, long requested) {
        return TopicBroadcaster.subscribe(live).subscribe().withSubscriber(AssertSubscriber.create(requested));
    }

    @Test
    void aBurstOfAThousandAlertsReachesASlowSubscriberAndAFastOneWhole() {
        BroadcastProcessor<Views.FeedAlertView> live = BroadcastProcessor.create();
        AssertSubscriber<TopicBroadcaster.StreamItem<Views.FeedAlertView>> fast = subscriber(live, Long.MAX_VALUE);
        AssertSubscriber<TopicBroadcaster.StreamItem<Views.FeedAlertView>> slow = subscriber(live, 1);

        for (int i = 0; i < 1_000; i++) {
            live.onNext(alert(i));
        }
        assertThat(fast.getItems()).hasSize(1_000);
        assertThat(slow.getItems()).hasSize(1);
        slow.assertNotTerminated();

        slow.request(10_000);
        assertThat(slow.getItems()).hasSize(1_000).allMatch(TopicBroadcaster.Item.class::isInstance);
        assertThat(((TopicBroadcaster.Item<Views.FeedAlertView>) slow.getItems().get(999)).value().alertId()).isEqualTo("a-999");
        slow.assertNotTerminated();
        live.onNext(alert(1_000));
        assertThat(slow.getItems()).hasSize(1_001);
    }

    @Test
    void aSubscriberThatFallsFurtherBehindGetsOneOverflowItemAndItsStreamEnds() {
        BroadcastProcessor<Views.FeedAlertView> live = BroadcastProcessor.create();
        AssertSubscriber<TopicBroadcaster.StreamItem<Views.FeedAlertView>> fast = subscriber(live, Long.MAX_VALUE);
        AssertSubscriber<TopicBroadcaster.StreamItem<Views.FeedAlertView>> stalled = subscriber(live, 0);

        int burst = TopicBroadcaster.SUBSCRIBER_BUFFER + 500;
        for (int i = 0; i < burst; i++) {
            live.onNext(alert(i));
        }
        assertThat(fast.getItems()).as("the others are not held back").hasSize(burst);
        fast.assertNotTerminated();

        stalled.request(Long.MAX_VALUE);
        // The alerts it had waiting are dropped with the overflow (it re-reads them from /v1/alerts): one item, then the end.
        assertThat(stalled.getItems()).containsExactly(new TopicBroadcaster.Overflow<Views.FeedAlertView>(TopicBroadcaster.SUBSCRIBER_BUFFER));
        stalled.assertCompleted();
    }
}
