package io.streamhouse.api.mcp;

import io.streamhouse.domain.pii.CardNumbers;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.function.Supplier;

/**
 * How tools answer: a JSON text content on success, an error result ({@code isError: true}) with a message an agent
 * can act on otherwise. {@link #guard} turns anything a tool throws into such a result, so no exception reaches the
 * transport.
 */
@ApplicationScoped
public class ToolResults {
    private static final Logger LOG = Logger.getLogger(ToolResults.class);
    private final ObjectMapper mapper;

    public ToolResults(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Thrown inside a tool for an answer that is an error result with this message. The kind and the field tell an
     * HTTP route that shares the logic which status to answer and which input to name; a tool answers all alike.
     */
    public static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Why: a bad input (names {@link #field()}), an unknown subject, a subject in the wrong state, or a failed write. */
        public enum Kind { INVALID, NOT_FOUND, CONFLICT, UNAVAILABLE }

        private final Kind kind;
        private final String field;

        public Refusal(String message) {
            this(Kind.INVALID, null, message);
        }

        public Refusal(Kind kind, String field, String message) {
            super(message, null, false, false);
            this.kind = kind;
            this.field = field;
        }

        public Kind kind() {
            return kind;
        }

        /** The input at fault for {@link Kind#INVALID}; null when none is named. */
        public String field() {
            return field;
        }
    }

    public ToolResponse json(Object value) {
        try {
            return ToolResponse.success(new TextContent(mapper.writeValueAsString(value)));
        } catch (JsonProcessingException e) {
            return ToolResponse.error("could not render the answer as JSON: " + e.getOriginalMessage());
        }
    }

    public ToolResponse guard(String tool, Supplier<ToolResponse> body) {
        try {
            return body.get();
        } catch (Refusal e) {
            return error(e.getMessage());
        } catch (InvalidStateStoreException e) {
            return error(tool + ": the state stores are not queryable right now (starting, restoring or "
                    + "rebalancing); retry in a second. (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            // The message may repeat an argument: logged masked, without the throwable whose message would not be.
            LOG.warnf("MCP tool %s failed: %s at %s", tool, CardNumbers.mask(String.valueOf(e)),
                    e.getStackTrace().length > 0 ? e.getStackTrace()[0] : "?");
            return error(tool + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** A tool's error, card numbers masked: an error repeats arguments (docs/pii.md). */
    public static ToolResponse error(String message) {
        return ToolResponse.error(CardNumbers.mask(message));
    }

    static String requireId(String what, String id) {
        if (id == null || id.isBlank()) {
            throw new Refusal(Refusal.Kind.INVALID, what, what + " is required");
        }
        if (!io.streamhouse.api.decisions.DecisionQueries.isValidId(id)) {
            throw new Refusal(Refusal.Kind.INVALID, what, "malformed " + what + " '" + id + "': " + io.streamhouse.api.decisions.DecisionQueries.ID_RULE);
        }
        return id;
    }

    /** An optional ISO-8601 instant argument (null or blank: now). */
    static Instant optionalInstant(String what, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new Refusal("malformed " + what + " '" + text + "': expected an ISO-8601 instant such as 2026-11-29T20:00:00Z");
        }
    }
}
