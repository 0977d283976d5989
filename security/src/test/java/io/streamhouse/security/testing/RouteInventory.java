package io.streamhouse.security.testing;

import io.quarkus.resteasy.reactive.server.runtime.ResteasyReactiveRecorder;
import io.quarkus.security.Authenticated;
import jakarta.annotation.security.DenyAll;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.server.core.Deployment;
import org.jboss.resteasy.reactive.server.handlers.ClassRoutingHandler;
import org.jboss.resteasy.reactive.server.handlers.RestInitialHandler;
import org.jboss.resteasy.reactive.server.mapping.RequestMapper;
import org.jboss.resteasy.reactive.server.mapping.RuntimeResource;
import org.jboss.resteasy.reactive.server.spi.ServerRestHandler;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The JAX-RS routes of the running app, read from the REST deployment Quarkus built (the same table that routes
 * requests), not from a hand-kept list: a new resource method shows up here without anyone adding it. Call it from a
 * {@code @QuarkusTest}, where the app is running in the test's class loader.
 */
public final class RouteInventory {

    /**
     * One route: HTTP method, path template (path parameters as {@code {name}}), the Java method that serves it, and
     * the media types it consumes and produces.
     */
    public record Route(String httpMethod, String path, Method javaMethod, List<MediaType> consumes, List<MediaType> produces) {

        /** The access annotation that decides this route: the method's own, else its class's; null if neither has one. */
        public Annotation access() {
            Annotation own = accessOn(javaMethod.getAnnotations());
            return own != null ? own : accessOn(javaMethod.getDeclaringClass().getAnnotations());
        }

        /** The roles of an explicit {@code @RolesAllowed}; empty for any other access annotation or none. */
        public List<String> rolesAllowed() {
            return access() instanceof RolesAllowed r ? List.of(r.value()) : List.of();
        }

        /** The path with each parameter filled in, so the route can be called. */
        public String callablePath(String parameterValue) {
            return path.replaceAll("\\{[^}]+}", parameterValue);
        }

        public boolean streams() {
            return produces.stream().anyMatch(MediaType.SERVER_SENT_EVENTS_TYPE::isCompatible);
        }

        @Override
        public String toString() {
            return httpMethod + " " + path + " (" + javaMethod.getDeclaringClass().getSimpleName() + "." + javaMethod.getName() + ")";
        }
    }

    public static List<Route> jaxRsRoutes() {
        Deployment deployment = ResteasyReactiveRecorder.getCurrentDeployment();
        if (deployment == null) {
            throw new IllegalStateException("no REST deployment: call this from a @QuarkusTest");
        }
        String prefix = deployment.getPrefix() == null ? "" : deployment.getPrefix();
        List<Route> routes = new ArrayList<>();
        for (RequestMapper.RequestPath<RestInitialHandler.InitialMatch> classPath : deployment.getClassMappers()) {
            for (ServerRestHandler handler : classPath.value.handlers) {
                if (!(handler instanceof ClassRoutingHandler byMethod)) {
                    continue;
                }
                for (Map.Entry<String, RequestMapper<RuntimeResource>> e : byMethod.getMappers().entrySet()) {
                    for (RequestMapper.RequestPath<RuntimeResource> target : e.getValue().getTemplates()) {
                        RuntimeResource resource = target.value;
                        routes.add(new Route(resource.getHttpMethod(),
                                normalise(prefix + "/" + classPath.template.template + "/" + target.template.template),
                                javaMethod(resource), List.copyOf(resource.getConsumes()),
                                resource.getProduces() == null ? List.of() : List.of(resource.getProduces().getSortedMediaTypes())));
                    }
                }
            }
        }
        routes.sort(Comparator.comparing(Route::path).thenComparing(Route::httpMethod));
        return List.copyOf(routes);
    }

    private static Method javaMethod(RuntimeResource resource) {
        try {
            return resource.getResourceClass().getMethod(resource.getJavaMethodName(), resource.getParameterTypes());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("no method " + resource.getJavaMethodName() + " on " + resource.getResourceClass(), e);
        }
    }

    private static Annotation accessOn(Annotation[] annotations) {
        for (Annotation a : annotations) {
            if (a instanceof RolesAllowed || a instanceof PermitAll || a instanceof DenyAll || a instanceof Authenticated) {
                return a;
            }
        }
        return null;
    }

    private static String normalise(String path) {
        String p = path.replaceAll("/{2,}", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private RouteInventory() {
    }
}
