package io.streamhouse.launcher;

import io.streamhouse.platform.PlatformOptions;

import java.nio.file.Path;

/** The launcher's command line. */
record LaunchOptions(String command, Path home, Path data, int ingestPort, int apiPort, int kafkaPort, int registryPort,
                     int demoCount, long seed, boolean exitAfterDemo, boolean fresh, boolean purge) {

    static final String USAGE = """
            usage: ./streamhouse up [--demo N] [--seed S] [--no-demo] [--fresh] [--exit-after-demo]
                                    [--ingest-port P] [--api-port P] [--kafka-port P] [--registry-port P] [--data DIR]
                   ./streamhouse down [--purge]   (--purge also drops the CDC replication slot and publication)
                   ./streamhouse status""";

    static LaunchOptions parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("a command is required");
        }
        String command = args[0];
        Path home = Path.of(System.getProperty("streamhouse.home", ".")).toAbsolutePath().normalize();
        int ingest = 8081, api = 8082, kafka = 9092, registry = 8085, demo = 50;
        long seed = 42;
        Path data = null;
        boolean exit = false, fresh = false, purge = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--demo" -> demo = positive(a, value(args, ++i, a));
                case "--no-demo" -> demo = 0;
                case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                case "--exit-after-demo" -> exit = true;
                case "--fresh" -> fresh = true;
                case "--purge" -> purge = true;
                case "--data" -> data = Path.of(value(args, ++i, a)).toAbsolutePath().normalize();
                case "--ingest-port" -> ingest = port(a, value(args, ++i, a));
                case "--api-port" -> api = port(a, value(args, ++i, a));
                case "--kafka-port" -> kafka = port(a, value(args, ++i, a));
                case "--registry-port" -> registry = port(a, value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new LaunchOptions(command, home, data == null ? home.resolve(".streamhouse") : data, ingest, api, kafka, registry, demo, seed, exit, fresh, purge);
    }

    PlatformOptions platformOptions(Path dataDir) {
        return PlatformOptions.forLauncher(dataDir).withKafkaPort(kafkaPort).withRegistryPort(registryPort);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String option, String raw) {
        int v = Integer.parseInt(raw);
        if (v < 1 || v > 100_000) {
            throw new IllegalArgumentException(option + " must be between 1 and 100000");
        }
        return v;
    }

    private static int port(String option, String raw) {
        int v = Integer.parseInt(raw);
        if (v < 0 || v > 65535) {
            throw new IllegalArgumentException(option + " must be a port number (0 picks a free one)");
        }
        return v;
    }
}
