/**
 * The HTTP side of access control shared by ingest and the api (Quarkus, smallrye-jwt): 401 and 403 answered as
 * problem+json, and per-caller rate limits answered 429, each refusal audited ({@code io.streamhouse.security.audit}).
 * Which paths need which roles is the apps' configuration ({@code quarkus.http.auth.*}) and their
 * {@code @RolesAllowed} annotations.
 */
package io.streamhouse.security.http;
