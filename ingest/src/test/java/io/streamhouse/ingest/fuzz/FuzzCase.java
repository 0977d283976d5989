package io.streamhouse.ingest.fuzz;

/**
 * One request of the fuzz run.
 *
 * @param what        how it was made, for failure messages
 * @param path        request path (and query)
 * @param contentType the Content-Type header
 * @param body        the raw body
 * @param expect      what a correct ingest must answer
 */
record FuzzCase(String what, String path, String contentType, byte[] body, Expect expect) {

    enum Expect {
        /** Valid by construction: must be accepted and be on the log. */
        ACCEPT,
        /** Invalid by construction: must be refused with a 4xx problem. */
        REJECT,
        /** Might be either (a mutation can land on a value that is still valid): never a 5xx; if accepted, on the log. */
        EITHER
    }
}
