package io.streamhouse.api.audit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code streamhouse_audit_events_lost} on {@code /q/metrics}: audit events the broker did not take since start (each
 * is also logged in full at ERROR). Anything above 0 is a gap in {@code audit.events} to fill from the logs.
 */
@Startup
@ApplicationScoped
public class AuditMetrics {

    public AuditMetrics(MeterRegistry registry, AuditTrail trail) {
        Gauge.builder("streamhouse.audit.events.lost", trail, AuditTrail::lost)
                .description("Audit events not written to audit.events since start (logged at ERROR instead)")
                .register(registry);
    }
}
