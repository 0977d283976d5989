/**
 * {@code GET /v1/replay/runs}: the records the replay CLI and the drills leave in the stack's {@code <data>/results/}
 * (one JSON file per rebuild, backfill, promote, discard or drill run), served as written, newest first.
 */
package io.streamhouse.api.runs;
