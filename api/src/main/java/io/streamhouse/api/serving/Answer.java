package io.streamhouse.api.serving;

/** What {@link ProjectionQueries} answers: a view, an unknown key, or no replica able to answer. */
public sealed interface Answer<T> permits Answer.Ok, Answer.NotFound, Answer.Unavailable {
    record Ok<T>(T view) implements Answer<T> {
    }

    record NotFound<T>(String message) implements Answer<T> {
    }

    record Unavailable<T>(String message) implements Answer<T> {
    }
}
