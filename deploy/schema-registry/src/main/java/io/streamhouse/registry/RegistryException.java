package io.streamhouse.registry;

/**
 * An error answer, with Confluent's HTTP status, error code and (as close as we know them) message, because clients
 * branch on the codes: Confluent's Java and JavaScript clients treat 40401/40403 as "not registered yet", 409 as
 * "incompatible" and retry 5xx.
 */
public final class RegistryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    RegistryException(int httpStatus, int errorCode, String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    RegistryException(int httpStatus, int errorCode, String message, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }

    static RegistryException subjectNotFound(String subject) {
        return new RegistryException(404, 40401, "Subject '" + subject + "' not found.");
    }

    static RegistryException versionNotFound(Object version) {
        return new RegistryException(404, 40402, "Version " + version + " not found.");
    }

    static RegistryException schemaNotFound(int id) {
        return new RegistryException(404, 40403, "Schema " + id + " not found");
    }

    static RegistryException schemaNotFoundUnderSubject(String subject) {
        return new RegistryException(404, 40403, "Schema not found under subject '" + subject + "'");
    }

    static RegistryException subjectSoftDeleted(String subject) {
        return new RegistryException(404, 40404, "Subject '" + subject + "' was soft deleted."
                + " Set permanent=true to delete permanently");
    }

    static RegistryException subjectNotSoftDeleted(String subject) {
        return new RegistryException(404, 40405, "Subject '" + subject + "' was not deleted first before being"
                + " permanently deleted");
    }

    static RegistryException versionSoftDeleted(String subject, int version) {
        return new RegistryException(404, 40406, "Subject '" + subject + "' Version " + version
                + " was soft deleted. Set permanent=true to delete permanently");
    }

    static RegistryException versionNotSoftDeleted(String subject, int version) {
        return new RegistryException(404, 40407, "Subject '" + subject + "' Version " + version
                + " was not deleted first before being permanently deleted");
    }

    static RegistryException subjectCompatibilityNotConfigured(String subject) {
        return new RegistryException(404, 40408, "Subject '" + subject
                + "' does not have subject-level compatibility configured");
    }

    static RegistryException incompatible(String subject, java.util.List<String> problems) {
        return new RegistryException(409, 409, "Schema being registered is incompatible with an earlier schema for"
                + " subject \"" + subject + "\", details: " + problems);
    }

    static RegistryException invalidSchema(String detail) {
        return new RegistryException(422, 42201, "Invalid schema: " + detail);
    }

    static RegistryException invalidVersion(String version) {
        return new RegistryException(422, 42202, "The specified version '" + version + "' is not a valid version id."
                + " Allowed values are between [1, 2^31-1] and the string \"latest\"");
    }

    static RegistryException invalidCompatibilityLevel(String level) {
        return new RegistryException(422, 42203, "Invalid compatibility level '" + level + "'. Valid values are none,"
                + " backward, forward, full, backward_transitive, forward_transitive, and full_transitive");
    }

    static RegistryException storeFailure(String action, Throwable cause) {
        return new RegistryException(500, 50001, "Error in the backend data store while " + action + ": "
                + cause.getMessage(), cause);
    }

    static RegistryException notFound() {
        return new RegistryException(404, 404, "HTTP 404 Not Found");
    }

    static RegistryException methodNotAllowed() {
        return new RegistryException(405, 405, "HTTP 405 Method Not Allowed");
    }

    static RegistryException badRequest(String detail) {
        return new RegistryException(400, 400, detail);
    }
}
