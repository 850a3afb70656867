package com.teamdesk.tasks.web;

import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.InputStream;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The console's development sign-in, {@code /api/v1/dev-login} (no token needed). Answers 404 problem+json,
 * as an unknown path would, unless {@link DevLogin#enabled()}.
 */
@Path("dev-login")
@PermitAll
@Produces(MediaType.APPLICATION_JSON)
public class DevLoginResource {

    @Inject
    DevLogin devLogin;

    @Inject
    HttpLimits limits;

    @Context
    HttpHeaders headers;

    /** @return {@code {"items": [{username, displayName, teams, operator}]}} */
    @GET
    @Path("users")
    @Operation(hidden = true, summary = "Development only: the users one may sign in as")
    public JsonObject users() {
        JsonArray items = Json.createArrayBuilder(devLogin.users()).build();
        return Json.createObjectBuilder().add("items", items).build();
    }

    /**
     * @param body {@code {"username": "ada"}}
     * @return {@code {"token": "<JWT>"}}
     */
    @POST
    @Path("token")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(hidden = true, summary = "Development only: a bearer token for a user")
    public JsonObject token(InputStream body) {
        devLogin.requireEnabled(); // before reading the body: off, the endpoint does not exist
        JsonObject o = RequestInput.object(body, headers.getMediaType(), Set.of("username"), limits);
        return Json.createObjectBuilder().add("token", devLogin.token(RequestInput.string(o, "username"))).build();
    }
}
