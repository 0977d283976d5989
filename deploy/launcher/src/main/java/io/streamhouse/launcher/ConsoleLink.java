package io.streamhouse.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * {@code ./streamhouse console [--role R] [--data DIR]}: a link that signs a browser into the running stack's console
 * with that role's development token. The token is in the link's fragment, which a browser never sends to a server;
 * the console keeps it for its tab only (docs/console.md).
 */
final class ConsoleLink {

    static final String USAGE = "usage: ./streamhouse console [--role reviewer|ops|rules-admin|analyst|payments] [--data DIR]";

    /** The roles with views in the console (agent, device and internal call the API or MCP only). */
    static final List<String> ROLES = List.of("reviewer", "ops", "rules-admin", "analyst", "payments");

    static int run(String[] args, Path home, PrintStream out, PrintStream err) {
        return run(args, home, data -> PidFile.running(data).isPresent(), out, err);
    }

    static int run(String[] args, Path home, java.util.function.Predicate<Path> running, PrintStream out, PrintStream err) {
        String role = "reviewer";
        Path data = home.resolve(".streamhouse");
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--role" -> role = i + 1 < args.length ? args[++i] : "";
                case "--data" -> data = Path.of(i + 1 < args.length ? args[++i] : "").toAbsolutePath().normalize();
                default -> {
                    err.println("unknown option " + args[i]);
                    err.println(USAGE);
                    return 2;
                }
            }
        }
        if (!ROLES.contains(role)) {
            err.println("--role must be one of " + String.join(", ", ROLES) + ", not '" + role + "'");
            return 2;
        }
        Path endpoints = data.resolve("endpoints.properties");
        Path token = data.resolve("tokens").resolve(role + ".jwt");
        if (!running.test(data) || !Files.isRegularFile(endpoints)) {
            err.println("Streamhouse is not running with data directory " + data + ": start it with ./streamhouse up");
            return 1;
        }
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(endpoints)) {
            p.load(r);
        } catch (IOException e) {
            err.println("Cannot read " + endpoints + ": " + e.getMessage());
            return 1;
        }
        String api = p.getProperty(LaunchOptions.apiComponent(1) + ".url");
        if (api == null) {
            err.println("The running stack has no api yet (" + endpoints + " names none): wait until up says it is ready");
            return 1;
        }
        String jwt;
        try {
            jwt = Files.readString(token).strip();
        } catch (IOException e) {
            err.println("No development token for role " + role + " (" + token + "): start the stack with ./streamhouse up");
            return 1;
        }
        out.println(link(api, jwt));
        out.println("(signs a browser in as " + role + "; the token is valid for 30 days: keep the link to yourself)");
        return 0;
    }

    static String link(String apiUrl, String jwt) {
        return apiUrl.replaceFirst("/$", "") + "/console/#token=" + jwt;
    }

    private ConsoleLink() {
    }
}
