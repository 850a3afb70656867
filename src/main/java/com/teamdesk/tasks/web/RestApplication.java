package com.teamdesk.tasks.web;

import jakarta.annotation.security.DeclareRoles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Map;
import org.eclipse.microprofile.auth.LoginConfig;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/**
 * The JAX-RS application under {@code /api/v1}. Every resource requires a valid MicroProfile JWT
 * bearer token (RS256, issuer from {@code mp.jwt.verify.issuer}, public key from
 * {@code MP_JWT_VERIFY_PUBLICKEY_LOCATION}) whose {@code groups} contain {@value #MEMBER}; what a
 * member may do in a team is decided by the services, not by token groups.
 */
@ApplicationScoped
@ApplicationPath("/api/v1")
@LoginConfig(authMethod = "MP-JWT")
@DeclareRoles({RestApplication.MEMBER, RestApplication.OPERATOR})
@OpenAPIDefinition(
        info = @Info(title = "TeamDesk Tasks API", version = "1",
                description = "Tickets, background tasks (CSV export, reminders) and member views of TeamDesk."),
        security = @SecurityRequirement(name = "bearer"))
@SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer", bearerFormat = "JWT")
public class RestApplication extends Application {
    /** The token group (and application role) every API caller must have. */
    public static final String MEMBER = "member";
    /** The token group (and application role) of operators: the only callers of {@code /api/v1/admin} (issue 14). */
    public static final String OPERATOR = "operator";

    /**
     * Jersey would resolve a relative {@code Location} against the request's base URI, i.e. the
     * client's {@code Host} header; {@link ApiLinks} builds links deliberately, so keep them as given.
     */
    @Override
    public Map<String, Object> getProperties() {
        // No WADL: OPTIONS would answer a document naming Jersey and its Payara build.
        return Map.of("jersey.config.server.headers.location.relative.resolution.disabled", Boolean.TRUE,
                "jersey.config.server.wadl.disableWadl", Boolean.TRUE);
    }
}
