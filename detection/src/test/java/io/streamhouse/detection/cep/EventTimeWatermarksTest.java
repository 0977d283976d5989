package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.detection.PatternSettings;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EventTimeWatermarksTest {

    /**
     * The rules stream is every matcher's second input. Were it to emit a watermark (it emitted +∞ before), a matcher
     * whose events went idle would take that one as its event time: +∞, end of input, for good.
     */
    @Test
    void theRulesStreamIsIdleAndNeverEmitsAWatermark() {
        WatermarkGenerator<RuleDefinition> rules = EventTimeWatermarks.<RuleDefinition>notEventTime()
                .createWatermarkGenerator(null);
        Recording out = new Recording();

        rules.onPeriodicEmit(out);
        rules.onEvent(PatternSettings.defaultDefinitions().get(0), 0L, out);
        rules.onPeriodicEmit(out);

        assertThat(out.watermarks).isEmpty();
        assertThat(out.idle).isTrue();
    }

    private static final class Recording implements WatermarkOutput {
        final List<Long> watermarks = new ArrayList<>();
        boolean idle;

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
            idle = false;
        }

        @Override
        public void markIdle() {
            idle = true;
        }

        @Override
        public void markActive() {
            idle = false;
        }
    }
}
