package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Optional;

/**
 * One fraud rule, built from a {@code RuleDefinition} event. A rule is a pure function of the request (and, from
 * the Decisions issue on, of the always-current state passed to it): no clock, no I/O, so a replay decides the same.
 */
public interface Rule {
    String id();

    int version();

    Optional<RuleHit> evaluate(TransactionAuthorizationRequested request);
}
