package io.streamhouse.security.http;

import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Per-caller rate limits: each token subject gets a bucket of {@code streamhouse.security.rate-limit.burst} requests
 * refilled at {@code streamhouse.security.rate-limit.per-second} (or its own limit from
 * {@code streamhouse.security.rate-limit.overrides}); past it, 429 problem+json with Retry-After. Runs
 * after authentication and the path permissions (a filter of lower priority than Quarkus' authorization), so
 * anonymous requests to the open paths (health, metadata) are not counted and a denied request never reaches it. Each
 * 429 is audited once (REQUEST_DENIED).
 */
@ApplicationScoped
public class CallerRateLimits {
    /** Below Quarkus' authorization filter (priority 100), above every route. */
    static final int PRIORITY = 50;

    private final TokenBuckets buckets;
    private final boolean enabled;
    private final AuditTrail audit;

    public CallerRateLimits(@ConfigProperty(name = "streamhouse.security.rate-limit.enabled", defaultValue = "true") boolean enabled,
                            @ConfigProperty(name = "streamhouse.security.rate-limit.per-second", defaultValue = "1000") double perSecond,
                            @ConfigProperty(name = "streamhouse.security.rate-limit.burst", defaultValue = "2000") int burst,
                            @ConfigProperty(name = "streamhouse.security.rate-limit.overrides") java.util.Optional<String> overrides,
                            AuditTrail audit) {
        this.enabled = enabled;
        this.audit = audit;
        this.buckets = new TokenBuckets(new TokenBuckets.Limit(perSecond, burst), TokenBuckets.parseOverrides(overrides.orElse("")),
                System::nanoTime);
    }

    void register(@Observes Filters filters) {
        if (!enabled) {
            return;
        }
        filters.register(context -> {
            if (context.user() instanceof QuarkusHttpUser user) {
                SecurityIdentity identity = user.getSecurityIdentity();
                String caller = identity.isAnonymous() ? null : identity.getPrincipal().getName();
                if (caller != null && !buckets.tryAcquire(caller)) {
                    context.response().putHeader("Retry-After", Long.toString(buckets.limitOf(caller).retryAfterSeconds()));
                    String detail = "This caller exceeded its rate limit; retry after the given seconds.";
                    ProblemBodies.write(context.response(), 429, "Too many requests", detail);
                    audit.denied(context, identity, 429, detail);
                    return;
                }
            }
            context.next();
        }, PRIORITY);
    }
}
