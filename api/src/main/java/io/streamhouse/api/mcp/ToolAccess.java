package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.FilterContext;
import io.quarkiverse.mcp.server.McpMethod;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolFilter;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Singleton;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hides from {@code tools/list} every tool the caller's roles may not call. The roles come from each tool method's
 * own {@code @RolesAllowed}, which also refuses a call to a hidden tool (MCP error -32001); a tool without one is
 * hidden from everyone (deny by default). A {@code tools/call} of a tool the caller may not call is refused here, before
 * the tool runs: that refusal is its audit event (MCP_TOOL_CALLED, DENIED; {@link ToolAudit} audits the calls that run).
 */
@Singleton
public class ToolAccess implements ToolFilter {
    static final List<Class<?>> TOOL_CLASSES = List.of(DomainTools.class, ContextTools.class, ReviewTools.class, SqlTools.class);
    private static final Map<String, List<String>> ROLES = rolesByTool();

    private final CurrentIdentityAssociation identity;
    private final AuditTrail audit;

    public ToolAccess(CurrentIdentityAssociation identity, AuditTrail audit) {
        this.identity = identity;
        this.audit = audit;
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

    /**
     * The roles that may call a tool; empty for an unknown tool or one without {@code @RolesAllowed}. Public for the
     * route inventory, which holds docs/security.md's table to it.
     */
    public static List<String> rolesOf(String tool) {
        return ROLES.getOrDefault(tool, List.of());
    }

    @Override
    public boolean test(ToolManager.ToolInfo tool, FilterContext context) {
        SecurityIdentity caller = identity.getIdentity();
        boolean allowed = caller != null && !caller.isAnonymous() && rolesOf(tool.name()).stream().anyMatch(caller::hasRole);
        if (!allowed && context.method() == McpMethod.TOOLS_CALL) {
            audit.record(audit.currentCaller(), new AuditTrail.Entry(AuditAction.MCP_TOOL_CALLED, "tool", tool.name(),
                    java.util.Map.of("tool", tool.name()), "mcp", AuditOutcome.DENIED, null,
                    "this tool needs one of the roles " + String.join(", ", rolesOf(tool.name()))), false);
        }
        return allowed;
    }
}
