package io.streamhouse.lake;

import io.streamhouse.lake.LakeAudit.Coordinate;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class LakeAuditTest {

    private static final Coordinate A = new Coordinate(0, 0), B = new Coordinate(0, 1), C = new Coordinate(1, 0);

    @Test
    void equalWhenEveryCommittedRecordLandedOnceLessTheDeadLettered() {
        LakeAudit.TopicAudit t = LakeAudit.compare("t", List.of(A, C), Set.of(A, B, C), Set.of(B));
        assertThat(t.equal()).isTrue();
        assertThat(t).extracting(LakeAudit.TopicAudit::rows, LakeAudit.TopicAudit::committed, LakeAudit.TopicAudit::deadLettered)
                .containsExactly(2L, 3L, 1L);
    }

    @Test
    void countsMissingExtraAndTwiceLandedRows() {
        LakeAudit.TopicAudit t = LakeAudit.compare("t", List.of(A, A, C), Set.of(A, B), Set.of());
        assertThat(t.equal()).isFalse();
        assertThat(t).extracting(LakeAudit.TopicAudit::missing, LakeAudit.TopicAudit::extra, LakeAudit.TopicAudit::duplicateRows)
                .containsExactly(1L, 1L, 1L);
        assertThat(t.examples()).containsExactlyInAnyOrder("twice 0@0", "extra 1@0", "missing 0@1");
    }

    @Test
    void theAuditLineTheChildPrintsParsesBack() {
        LakeAudit.TopicAudit t = LakeAuditProcess.parse("orders rows=3 committed=4 deadLettered=0 missing=1 extra=0 duplicates=0 examples=missing_0@1");
        assertThat(t).isEqualTo(new LakeAudit.TopicAudit("orders", 3, 4, 0, 1, 0, 0, List.of("missing 0@1")));
        assertThat(LakeAuditProcess.parse("orders rows=0 committed=0 deadLettered=0 missing=0 extra=0 duplicates=0 examples=").examples()).isEmpty();
    }
}
