package io.streamhouse.ingest.http;

/** One bad field of a request: its JSON path (e.g. {@code [3].merchant.mcc}) and what is wrong with it. */
public record FieldError(String field, String message) {
}
