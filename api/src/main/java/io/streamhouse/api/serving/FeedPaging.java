package io.streamhouse.api.serving;

import io.streamhouse.api.http.Problems;
import jakarta.ws.rs.WebApplicationException;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The paging parameters of the feed lists ({@code GET /v1/alerts}, {@code GET /v1/decisions}): a page size and the
 * cursor of the previous page's last entry, each refused with a 400 naming the field when malformed.
 */
public final class FeedPaging {
    /** The largest page a feed list answers. */
    public static final int MAX_LIMIT = 500;
    /** A feed key as a page's {@code nextCursor} carries it: 13-digit epoch millis, then the entry's id. */
    private static final Pattern CURSOR = Pattern.compile("\\d{13}\\|[A-Za-z0-9._:-]{1,128}");

    private FeedPaging() {
    }

    /** The page size: 1 to {@value #MAX_LIMIT}, or a 400 naming {@code limit}. */
    public static int limit(String limit) {
        int n;
        try {
            n = Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 1 || n > MAX_LIMIT) {
            throw new WebApplicationException(Problems.of(400, "Bad query", "limit must be a whole number from 1 to " + MAX_LIMIT,
                    List.of(new Problems.FieldError("limit", "must be 1-" + MAX_LIMIT + ", was '" + limit + "'"))));
        }
        return n;
    }

    /** {@code before} as given (null for the first page), or a 400 naming it when it is not a cursor. */
    public static String before(String before) {
        if (before != null && !CURSOR.matcher(before).matches()) {
            throw new WebApplicationException(Problems.of(400, "Bad query", "before must be a nextCursor from an earlier page",
                    List.of(new Problems.FieldError("before", "not a cursor: '" + before + "'"))));
        }
        return before;
    }
}
