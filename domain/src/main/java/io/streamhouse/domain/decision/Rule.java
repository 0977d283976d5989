package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.util.Optional;

/**
 * One fraud rule, built from a {@code RuleDefinition} event. A rule is a pure function of the request and the
 * always-current state passed to it ({@link Features}): no clock, no I/O, so a replay decides the same.
 */
public interface Rule {
    String id();

    int version();

    Optional<RuleHit> evaluate(TransactionAuthorizationRequested request, Features features);
}
