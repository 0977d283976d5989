package io.streamhouse.security.http;

import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.streamhouse.security.audit.AuditTrail;
import io.vertx.ext.web.Router;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * 403 as a problem document that names the role needed, wherever the denial happens: in the HTTP permission
 * layer (paths such as {@code /q/*}, {@code /mcp}, {@code /internal/v1/*}, whose roles come from the app's
 * {@code quarkus.http.auth.permission.*} configuration) or on a JAX-RS method ({@code @RolesAllowed}). Each denial is
 * audited once (REQUEST_DENIED), where it is answered.
 */
@ApplicationScoped
public class ForbiddenProblems {
    private static final Pattern PATHS = Pattern.compile("quarkus\\.http\\.auth\\.permission\\.([^.]+)\\.paths");
    private static final Set<String> BUILT_IN = Set.of("permit", "deny", "authenticated");

    record PathRoles(String path, List<String> roles) {
        boolean matches(String requestPath) {
            return path.endsWith("/*") ? requestPath.startsWith(path.substring(0, path.length() - 1))
                    || requestPath.equals(path.substring(0, path.length() - 2)) : requestPath.equals(path);
        }
    }

    private final List<PathRoles> pathRoles = fromConfig(ConfigProvider.getConfig());
    private final AuditTrail audit;

    public ForbiddenProblems(AuditTrail audit) {
        this.audit = audit;
    }

    static List<PathRoles> fromConfig(Config config) {
        List<PathRoles> found = new ArrayList<>();
        for (String name : config.getPropertyNames()) {
            Matcher m = PATHS.matcher(name);
            if (!m.matches()) {
                continue;
            }
            String policy = config.getOptionalValue("quarkus.http.auth.permission." + m.group(1) + ".policy", String.class).orElse("");
            if (BUILT_IN.contains(policy)) {
                continue;
            }
            Optional<String> roles = config.getOptionalValue("quarkus.http.auth.policy." + policy + ".roles-allowed", String.class);
            roles.ifPresent(r -> {
                for (String path : config.getValue(name, String.class).split(",")) {
                    found.add(new PathRoles(path.trim(), Arrays.stream(r.split(",")).map(String::trim).toList()));
                }
            });
        }
        found.sort(Comparator.comparingInt((PathRoles p) -> p.path().length()).reversed());
        return List.copyOf(found);
    }

    /** The roles the HTTP permissions require for a path (the most specific match), empty if none. */
    List<String> rolesFor(String path) {
        return pathRoles.stream().filter(p -> p.matches(path)).findFirst().map(PathRoles::roles).orElse(List.of());
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).failureHandler(context -> {
            if (context.failure() instanceof ForbiddenException) {
                List<String> roles = rolesFor(context.normalizedPath());
                String detail = roles.isEmpty() ? "The token's roles do not allow this request."
                        : "This endpoint needs " + ProblemBodies.rolesPhrase(roles) + "; the token has none of them.";
                boolean answered = context.response().ended();
                ProblemBodies.write(context.response(), 403, "Forbidden", detail);
                if (!answered) {
                    audit.denied(context, context.user() instanceof QuarkusHttpUser user ? user.getSecurityIdentity() : null, 403, detail);
                }
            } else {
                context.next();
            }
        });
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, SimpleResourceInfo resource) {
        List<String> roles = resource == null ? List.of() : rolesAllowed(resource.getResourceClass(),
                resource.getMethodName(), resource.parameterTypes());
        String detail = roles.isEmpty() ? "The token's roles do not allow this request."
                : "This endpoint needs " + ProblemBodies.rolesPhrase(roles) + "; the token has none of them.";
        audit.denied(403, detail);
        return problem(403, "Forbidden", detail);
    }

    @ServerExceptionMapper
    public Response unauthorized(UnauthorizedException e) {
        audit.denied(401, "This endpoint needs a bearer token (Authorization: Bearer <token>).");
        return Response.fromResponse(problem(401, "Unauthorized", "This endpoint needs a bearer token (Authorization: Bearer <token>)."))
                .header("WWW-Authenticate", "Bearer realm=\"streamhouse\"").build();
    }

    static List<String> rolesAllowed(Class<?> type, String methodName, Class<?>[] parameters) {
        try {
            Method method = type.getMethod(methodName, parameters);
            RolesAllowed allowed = method.getAnnotation(RolesAllowed.class);
            if (allowed == null) {
                allowed = type.getAnnotation(RolesAllowed.class);
            }
            return allowed == null ? List.of() : List.of(allowed.value());
        } catch (NoSuchMethodException e) {
            return List.of();
        }
    }

    private static Response problem(int status, String title, String detail) {
        return Response.status(status).type(ProblemBodies.MEDIA_TYPE).entity(ProblemBodies.json(status, title, detail)).build();
    }
}
