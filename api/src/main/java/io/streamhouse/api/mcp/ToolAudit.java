package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One audit event per MCP tool call: who called which tool with which arguments (ids and enums as given, free text by
 * its length only) and how it ended — SUCCESS, FAILURE (the tool's error) or DENIED (the tool's {@code @RolesAllowed}).
 * A tool with a domain action of its own is recorded under it: {@code record_review_outcome} as
 * REVIEW_OUTCOME_RECORDED (a write: it answers only once its event is acknowledged), {@code why_blocked} as
 * DECISION_READ, {@code snapshot_query} as SNAPSHOT_QUERIED; every other tool as MCP_TOOL_CALLED. Runs outside the
 * security interceptor (priority 150), so a denied call is seen.
 */
@AuditedTools
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class ToolAudit {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._:@+-]{0,64}");

    record Target(AuditAction action, String resourceType, String resourceArg, boolean write) {
    }

    private static final Map<String, Target> TARGETS = Map.of(
            "record_review_outcome", new Target(AuditAction.REVIEW_OUTCOME_RECORDED, "transaction", "transactionId", true),
            "why_blocked", new Target(AuditAction.DECISION_READ, "transaction", "transactionId", false),
            "snapshot_query", new Target(AuditAction.SNAPSHOT_QUERIED, "sql", "sql", false));

    @Inject
    AuditTrail audit;

    @AroundInvoke
    Object audited(InvocationContext invocation) throws Exception {
        Method method = invocation.getMethod();
        Tool tool = method.getAnnotation(Tool.class);
        if (tool == null) {
            return invocation.proceed();
        }
        String name = tool.name().isEmpty() ? method.getName() : tool.name();
        Map<String, Object> args = arguments(method, invocation.getParameters());
        Target target = TARGETS.getOrDefault(name, new Target(AuditAction.MCP_TOOL_CALLED, "tool", null, false));
        Object resource = target.resourceArg() == null ? name : args.get(target.resourceArg());
        Map<String, String> details = new LinkedHashMap<>();
        details.put("tool", name);
        args.forEach((k, v) -> details.put("arg." + k, summary(v)));
        AuditTrail.Caller caller = audit.currentCaller();

        Object result;
        try {
            result = invocation.proceed();
        } catch (ForbiddenException | UnauthorizedException e) {
            record(caller, target, resource, details, AuditOutcome.DENIED, "this tool needs one of the roles "
                    + String.join(", ", ToolAccess.rolesOf(name)));
            throw e;
        } catch (Exception e) {
            record(caller, target, resource, details, AuditOutcome.FAILURE, e.getClass().getSimpleName());
            throw e;
        }
        boolean failed = result instanceof ToolResponse response && response.isError();
        try {
            audit.record(caller, new AuditTrail.Entry(target.action(), target.resourceType(), text(resource), details, "mcp",
                    failed ? AuditOutcome.FAILURE : AuditOutcome.SUCCESS, null,
                    failed ? errorText((ToolResponse) result) : null), target.write());
        } catch (AuditTrail.Unaudited e) {
            return failed ? result : ToolResults.error(e.getMessage());
        }
        return result;
    }

    private void record(AuditTrail.Caller caller, Target target, Object resource, Map<String, String> details,
                        AuditOutcome outcome, String reason) {
        try {
            audit.record(caller, new AuditTrail.Entry(target.action(), target.resourceType(), text(resource), details, "mcp",
                    outcome, null, reason), target.write());
        } catch (AuditTrail.Unaudited e) {
            // the call failed or was denied anyway; the event is in the ERROR log
        }
    }

    static Map<String, Object> arguments(Method method, Object[] values) {
        Map<String, Object> args = new LinkedHashMap<>();
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length && i < values.length; i++) {
            ToolArg arg = parameters[i].getAnnotation(ToolArg.class);
            if (arg != null && values[i] != null) {
                args.put(arg.name().isEmpty() ? parameters[i].getName() : arg.name(), values[i]);
            }
        }
        return args;
    }

    /** An id, an enum or a number as given; anything else (free text, SQL) by its length only. */
    static String summary(Object value) {
        String text = value.toString();
        return value instanceof Number || value instanceof Boolean || PLAIN.matcher(text).matches()
                ? text : "(" + text.length() + " chars)";
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString();
    }

    private static String errorText(ToolResponse response) {
        return response.content().stream().filter(TextContent.class::isInstance).map(c -> ((TextContent) c).text())
                .findFirst().orElse("tool error");
    }
}
