package io.streamhouse.api.decisions;

import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.security.Roles;

/**
 * Object-level access to decisions: a reviewer reads any; a payments caller only those of transactions it submitted
 * itself (the request's {@code submittedBy}, which ingest takes from the submitting token's subject). Anyone else's
 * decision, and decisions recorded before submitters were (schema v1), answer as unknown, so that a payments caller
 * cannot learn which transaction ids exist.
 */
public final class DecisionReaders {
    public static boolean mayRead(SecurityIdentity caller, TransactionDecision decision) {
        if (caller.hasRole(Roles.REVIEWER)) {
            return true;
        }
        return caller.hasRole(Roles.PAYMENTS) && decision.getSubmittedBy() != null
                && decision.getSubmittedBy().equals(caller.getPrincipal().getName());
    }

    private DecisionReaders() {
    }
}
