package io.streamhouse.api.serving;

import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a live stream goes out as server-sent events: each item as an unnamed event (a browser's EventSource
 * "message") with its JSON view; a subscriber that falls more than {@link TopicBroadcaster#SUBSCRIBER_BUFFER} items
 * behind gets one {@code overflow} event, {@code {"buffered", "detail", "reread"}}, and its stream ends.
 */
public final class LiveEvents {

    /**
     * @param what   the items' plural noun in the overflow's detail ("alerts", "decisions")
     * @param reread where the missed items can be read again, or null when no route lists them
     */
    public static <T> Multi<OutboundSseEvent> sse(Sse sse, Multi<TopicBroadcaster.StreamItem<T>> items, Class<T> type,
                                                  String what, String reread) {
        return items.map(item -> {
            if (item instanceof TopicBroadcaster.Item<T> i) {
                return sse.newEventBuilder().mediaType(MediaType.APPLICATION_JSON_TYPE).data(type, i.value()).build();
            }
            return sse.newEventBuilder().name("overflow").mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(Map.class, overflow(((TopicBroadcaster.Overflow<T>) item).buffered(), what, reread)).build();
        });
    }

    static Map<String, Object> overflow(int buffered, String what, String reread) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("buffered", buffered);
        body.put("detail", "this subscriber fell more than " + buffered + " " + what + " behind and its stream ends here; "
                + (reread == null ? "" : "read the missed ones from " + reread + " and ") + "subscribe again");
        body.put("reread", reread);
        return body;
    }

    private LiveEvents() {
    }
}
