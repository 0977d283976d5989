package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.DecisionOutcome;

import java.util.Comparator;
import java.util.List;

/**
 * What a payment gets, with every rule that fired. The strictest hit wins: any BLOCK blocks, else any REVIEW
 * reviews, else it is allowed. An ALLOW carries no reasons unless a rule explicitly allows.
 */
public sealed interface Decision permits Decision.Allow, Decision.Review, Decision.Block {

    List<RuleHit> reasons();

    long ruleSetVersion();

    DecisionOutcome outcome();

    record Allow(List<RuleHit> reasons, long ruleSetVersion) implements Decision {
        @Override
        public DecisionOutcome outcome() {
            return DecisionOutcome.ALLOW;
        }

        public Allow {
            reasons = List.copyOf(reasons);
        }
    }

    record Review(List<RuleHit> reasons, long ruleSetVersion) implements Decision {
        @Override
        public DecisionOutcome outcome() {
            return DecisionOutcome.REVIEW;
        }

        public Review {
            reasons = List.copyOf(reasons);
            if (reasons.isEmpty()) {
                throw new IllegalArgumentException("a REVIEW needs at least one reason");
            }
        }
    }

    record Block(List<RuleHit> reasons, long ruleSetVersion) implements Decision {
        @Override
        public DecisionOutcome outcome() {
            return DecisionOutcome.BLOCK;
        }

        public Block {
            reasons = List.copyOf(reasons);
            if (reasons.isEmpty()) {
                throw new IllegalArgumentException("a BLOCK needs at least one reason");
            }
        }
    }

    /** Combines hits: the strictest outcome decides; every hit is kept as a reason, strictest first. */
    static Decision of(List<RuleHit> hits, long ruleSetVersion) {
        List<RuleHit> ordered = hits.stream()
                .sorted(Comparator.comparing(RuleHit::outcome).reversed().thenComparing(RuleHit::ruleId))
                .toList();
        DecisionOutcome strictest = ordered.isEmpty() ? DecisionOutcome.ALLOW : ordered.get(0).outcome();
        return switch (strictest) {
            case ALLOW -> new Allow(ordered, ruleSetVersion);
            case REVIEW -> new Review(ordered, ruleSetVersion);
            case BLOCK -> new Block(ordered, ruleSetVersion);
        };
    }
}
