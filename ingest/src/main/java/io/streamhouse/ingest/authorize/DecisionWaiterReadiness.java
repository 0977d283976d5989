package io.streamhouse.ingest.authorize;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the decision waiter tails the decisions topic: before that an authorize could miss its decision. */
@Readiness
@ApplicationScoped
public class DecisionWaiterReadiness implements HealthCheck {
    private final DecisionWaiter waiter;

    public DecisionWaiterReadiness(DecisionWaiter waiter) {
        this.waiter = waiter;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("decision-waiter").status(waiter.isTailing()).build();
    }
}
