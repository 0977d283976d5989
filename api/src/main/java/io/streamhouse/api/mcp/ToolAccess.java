package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.FilterContext;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolFilter;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Singleton;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hides from {@code tools/list} every tool the caller's roles may not call. The roles come from each tool method's
 * own {@code @RolesAllowed}, which also refuses a call to a hidden tool (MCP error -32001); a tool without one is
 * hidden from everyone (deny by default).
 */
@Singleton
public class ToolAccess implements ToolFilter {
    static final List<Class<?>> TOOL_CLASSES = List.of(DomainTools.class, ContextTools.class, ReviewTools.class, SqlTools.class);
    private static final Map<String, List<String>> ROLES = rolesByTool();

    private final CurrentIdentityAssociation identity;

    public ToolAccess(CurrentIdentityAssociation identity) {
        this.identity = identity;
    }

    static Map<String, List<String>> rolesByTool() {
        Map<String, List<String>> roles = new HashMap<>();
        for (Class<?> type : TOOL_CLASSES) {
            for (Method method : type.getDeclaredMethods()) {
                Tool tool = method.getAnnotation(Tool.class);
                RolesAllowed allowed = method.getAnnotation(RolesAllowed.class);
                if (tool != null) {
                    roles.put(tool.name().isEmpty() ? method.getName() : tool.name(),
                            allowed == null ? List.of() : List.of(allowed.value()));
                }
            }
        }
        return Map.copyOf(roles);
    }

    /** The roles that may call a tool; empty for an unknown tool or one without {@code @RolesAllowed}. */
    static List<String> rolesOf(String tool) {
        return ROLES.getOrDefault(tool, List.of());
    }

    @Override
    public boolean test(ToolManager.ToolInfo tool, FilterContext context) {
        SecurityIdentity caller = identity.getIdentity();
        return caller != null && !caller.isAnonymous() && rolesOf(tool.name()).stream().anyMatch(caller::hasRole);
    }
}
