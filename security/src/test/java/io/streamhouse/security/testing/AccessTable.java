package io.streamhouse.security.testing;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.RouteInventory.Route;
import jakarta.annotation.security.PermitAll;
import org.eclipse.microprofile.config.Config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of roles against endpoints and MCP tools in docs/security.md ("Who may call what"), held to what the
 * running app enforces: every JAX-RS route, every HTTP path policy and every MCP tool has a row, each row names
 * exactly the roles the app admits, and no row names something the app does not have. An endpoint is written
 * {@code GET /v1/rules/{ruleId}} (the route's template), a path policy {@code ANY /q/*}, a tool {@code MCP why_blocked};
 * a cell is empty or starts with ✓; the {@code open} column means "no token needed".
 */
public final class AccessTable {
    public static final String OPEN = "open";
    static final String HEADER_START = "| app | endpoint or tool |";
    static final String ALLOWED = "✓";

    /** One row: the app, the endpoint or tool as written (backticks dropped), and the columns ticked. */
    public record Row(String app, String endpoint, Set<String> admitted) {
    }

    /** The rows of the table, after checking its columns are {@code open} and exactly the roles of {@link Roles}. */
    public static List<Row> read(Path doc) {
        List<String> lines;
        try {
            lines = Files.readAllLines(doc);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + doc.toAbsolutePath(), e);
        }
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(HEADER_START)) {
                assertThat(header).as("one table starting «%s» in %s", HEADER_START, doc).isEqualTo(-1);
                header = i;
            }
        }
        assertThat(header).as("a table starting «%s» in %s", HEADER_START, doc).isNotNegative();
        List<String> columns = cells(lines.get(header));
        List<String> roleColumns = columns.subList(2, columns.size()).stream().map(c -> c.replace("`", "")).toList();
        assertThat(roleColumns).as("the columns of the table in %s after app and endpoint", doc)
                .containsExactlyElementsOf(concat(OPEN, Roles.ALL));
        List<Row> rows = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            List<String> cells = cells(lines.get(i));
            assertThat(cells).as("cells of line %d of %s", i + 1, doc).hasSize(columns.size());
            Set<String> admitted = new LinkedHashSet<>();
            for (int c = 2; c < cells.size(); c++) {
                String cell = cells.get(c);
                assertThat(cell.isEmpty() || cell.startsWith(ALLOWED)).as("line %d of %s, column %s: empty or %s…, not «%s»",
                        i + 1, doc, roleColumns.get(c - 2), ALLOWED, cell).isTrue();
                if (!cell.isEmpty()) {
                    admitted.add(roleColumns.get(c - 2));
                }
            }
            rows.add(new Row(cells.get(0).replace("`", ""), cells.get(1).replace("`", "").replaceAll("\\s+", " "), admitted));
        }
        return rows;
    }

    /**
     * Fails unless the rows of {@code app} in the table are exactly {@code enforced} (endpoint or tool → the roles the
     * app admits, {@link #OPEN} for no token, empty for nobody). A missing row is printed ready to paste.
     */
    public static void assertDocuments(Path doc, String app, Map<String, Set<String>> enforced) {
        Map<String, Set<String>> documented = new TreeMap<>();
        for (Row row : read(doc)) {
            if (row.app().equals(app)) {
                assertThat(documented.put(row.endpoint(), row.admitted())).as("%s has one row for %s %s", doc, app, row.endpoint()).isNull();
            }
        }
        List<String> problems = new ArrayList<>();
        Map<String, Set<String>> expected = new TreeMap<>(enforced);
        expected.forEach((endpoint, roles) -> {
            Set<String> listed = documented.get(endpoint);
            if (listed == null) {
                problems.add("missing row: " + markdownRow(app, endpoint, roles));
            } else if (!listed.equals(roles)) {
                problems.add("%s %s: the table says %s, the app admits %s; the row should read: %s"
                        .formatted(app, endpoint, new TreeSet<>(listed), new TreeSet<>(roles), markdownRow(app, endpoint, roles)));
            }
        });
        documented.keySet().stream().filter(e -> !expected.containsKey(e))
                .forEach(e -> problems.add("row for something %s does not have: %s %s".formatted(app, app, e)));
        assertThat(problems).as("docs/security.md, \"Who may call what\", against what %s enforces (%d rows expected)",
                app, expected.size()).isEmpty();
    }

    /** Each route as {@code METHOD /path}: {@link #OPEN} if it is {@code @PermitAll}, else its {@code @RolesAllowed}. */
    public static Map<String, Set<String>> ofRoutes(List<Route> routes) {
        Map<String, Set<String>> byRoute = new TreeMap<>();
        for (Route r : routes) {
            byRoute.put(r.httpMethod() + " " + r.path(), r.access() instanceof PermitAll ? Set.of(OPEN) : Set.copyOf(r.rolesAllowed()));
        }
        return byRoute;
    }

    /**
     * Each path of each {@code quarkus.http.auth.permission.*} as {@code ANY /path} (or its methods): {@code permit} is
     * {@link #OPEN}, {@code deny} nobody, a named policy its {@code roles-allowed}. The default {@code /*} with
     * {@code authenticated} (any valid token) is the prose under the table, not a row.
     */
    public static Map<String, Set<String>> ofPathPolicies(Config config) {
        String prefix = "quarkus.http.auth.permission.";
        Map<String, Set<String>> byPath = new TreeMap<>();
        for (String name : config.getPropertyNames()) {
            if (!name.startsWith(prefix) || !name.endsWith(".paths")) {
                continue;
            }
            String permission = name.substring(prefix.length(), name.length() - ".paths".length());
            String policy = config.getValue(prefix + permission + ".policy", String.class);
            List<String> paths = split(config.getValue(name, String.class));
            String methods = config.getOptionalValue(prefix + permission + ".methods", String.class)
                    .map(m -> String.join(",", split(m))).orElse("ANY");
            Set<String> admitted = switch (policy) {
                case "permit" -> Set.of(OPEN);
                case "deny" -> Set.of();
                case "authenticated" -> {
                    assertThat(paths).as("permission %s: `authenticated` is documented for the default /* only", permission)
                            .containsExactly("/*");
                    yield null;
                }
                default -> Set.copyOf(split(config.getValue("quarkus.http.auth.policy." + policy + ".roles-allowed", String.class)));
            };
            if (admitted != null) {
                paths.forEach(p -> byPath.put(methods + " " + p, admitted));
            }
        }
        return byPath;
    }

    static String markdownRow(String app, String endpoint, Set<String> admitted) {
        return "| " + app + " | `" + endpoint + "` | " + concat(OPEN, Roles.ALL).stream()
                .map(c -> admitted.contains(c) ? ALLOWED : "").collect(Collectors.joining(" | ")) + " |";
    }

    private static List<String> cells(String line) {
        String inner = line.trim();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        return Arrays.stream(inner.split("\\|", -1)).map(String::trim).toList();
    }

    private static List<String> split(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    private AccessTable() {
    }
}
