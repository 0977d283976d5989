package io.streamhouse.security.http;

import io.vertx.core.http.HttpServerResponse;

import java.util.Collection;
import java.util.stream.Collectors;

/** RFC 9457 problem documents written straight to a Vert.x response (outside JAX-RS: security runs before it). */
public final class ProblemBodies {
    public static final String MEDIA_TYPE = "application/problem+json";

    static void write(HttpServerResponse response, int status, String title, String detail) {
        if (response.ended()) {
            return;
        }
        response.setStatusCode(status).putHeader("Content-Type", MEDIA_TYPE)
                .end(json(status, title, detail));
    }

    public static String json(int status, String title, String detail) {
        return "{\"type\":\"about:blank\",\"title\":" + quote(title) + ",\"status\":" + status + ",\"detail\":" + quote(detail) + "}";
    }

    /** "one of the roles a, b" or "the role a". */
    public static String rolesPhrase(Collection<String> roles) {
        return roles.size() == 1 ? "the role " + roles.iterator().next()
                : "one of the roles " + roles.stream().collect(Collectors.joining(", "));
    }

    /** {@code s} as a JSON string literal, quotes, backslashes and control characters escaped. */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private ProblemBodies() {
    }
}
