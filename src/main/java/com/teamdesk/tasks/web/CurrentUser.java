package com.teamdesk.tasks.web;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotAuthorizedException;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** The authenticated caller of the current request, from the verified JWT. */
@RequestScoped
public class CurrentUser {

    @Inject
    JsonWebToken token;

    /**
     * @return the caller's user id, the token's {@code sub}
     * @throws NotAuthorizedException (401 {@code auth.required}) no verified token, or a
     *                                {@code sub} that is not a UUID
     */
    public UUID id() {
        String sub = token == null ? null : token.getSubject();
        if (sub == null) {
            throw new NotAuthorizedException("No verified bearer token.", "Bearer");
        }
        try {
            return UUID.fromString(sub);
        } catch (IllegalArgumentException e) {
            throw new NotAuthorizedException("The token's subject is not a user id.", "Bearer");
        }
    }
}
