package io.streamhouse.domain.topic;

/** Header names on a late-events record ({@code <topic>.late}): why the CEP job received it late. */
public final class LateEventHeaders {
    public static final String REASON = "streamhouse.late.reason";
    public static final String SOURCE_TOPIC = "streamhouse.late.source.topic";
    public static final String WATERMARK = "streamhouse.late.watermark";
    public static final String LATENESS_MS = "streamhouse.late.lateness.ms";

    private LateEventHeaders() {
    }
}
