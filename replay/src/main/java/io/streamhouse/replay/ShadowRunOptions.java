package io.streamhouse.replay;

import picocli.CommandLine.Option;

/**
 * The options of a command that rebuilds into a shadow and compares it with live ({@code rebuild}, {@code backfill}),
 * declared once; picocli reads the options of a command's superclass as its own. ({@code --serving-app-id} stays
 * with each command: {@code backfill} adds its other live ids beside it.)
 */
abstract class ShadowRunOptions {
    @Option(names = "--json", description = "print the summary as JSON on stdout (and no progress)")
    boolean json;
    @Option(names = "--timeout", defaultValue = "600", description = "seconds the rebuild may take (default ${DEFAULT-VALUE})")
    int timeoutSeconds;
    @Option(names = "--live-timeout", defaultValue = "60", description = "seconds to wait for live to reach the cut (default ${DEFAULT-VALUE})")
    int liveTimeoutSeconds;
    @Option(names = "--max-diffs", defaultValue = "20", description = "differing keys listed per store (all are counted)")
    int maxDiffs;
}
