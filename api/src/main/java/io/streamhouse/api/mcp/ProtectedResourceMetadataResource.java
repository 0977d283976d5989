package io.streamhouse.api.mcp;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OAuth 2.0 protected resource metadata (RFC 9728) for the MCP endpoint, as the MCP authorization spec asks: where a
 * client gets a token for {@code /mcp}. Open to all (a client reads it after its first 401, whose
 * {@code WWW-Authenticate} points here). With development tokens there is no authorization server to name; with a
 * real identity provider, {@code streamhouse.security.authorization-servers} lists its issuer(s).
 */
@Path("/.well-known/oauth-protected-resource")
@PermitAll
public class ProtectedResourceMetadataResource {
    private final Optional<List<String>> authorizationServers;

    public ProtectedResourceMetadataResource(
            @ConfigProperty(name = "streamhouse.security.authorization-servers") Optional<List<String>> authorizationServers) {
        this.authorizationServers = authorizationServers;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> root(@Context UriInfo uri) {
        return metadata(uri);
    }

    /** The path-suffixed form of RFC 9728 section 3.1, for the resource {@code <base>/mcp}. */
    @GET
    @Path("/mcp")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> mcp(@Context UriInfo uri) {
        return metadata(uri);
    }

    private Map<String, Object> metadata(UriInfo uri) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("resource", uri.getBaseUri().resolve("/mcp").toString());
        authorizationServers.ifPresent(servers -> body.put("authorization_servers", servers));
        body.put("bearer_methods_supported", List.of("header"));
        body.put("resource_name", "Streamhouse MCP server");
        return body;
    }
}
