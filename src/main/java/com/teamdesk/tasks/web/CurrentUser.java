package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.AppUser;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.NotAuthorizedException;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** The authenticated caller of the current request, from the verified JWT. */
@RequestScoped
public class CurrentUser {

    @Inject
    JsonWebToken token;

    @PersistenceContext(unitName = "teamdesk")
    EntityManager em;

    private UUID id;

    /**
     * @return the caller's user id, the token's {@code sub}, once it is known to name a user
     * @throws NotAuthorizedException (401 {@code auth.required}) no verified token
     * @throws InvalidTokenException  (401 {@code auth.required}, {@code error="invalid_token"}) a
     *                                {@code sub} that is not a UUID or names no user
     */
    public UUID id() {
        if (id != null) {
            return id;
        }
        String sub = token == null ? null : token.getSubject();
        if (sub == null) {
            throw new NotAuthorizedException("No verified bearer token.", "Bearer");
        }
        UUID candidate;
        try {
            candidate = UUID.fromString(sub);
        } catch (IllegalArgumentException e) {
            throw new InvalidTokenException("The token's subject is not a user id.");
        }
        if (em.find(AppUser.class, candidate) == null) {
            throw new InvalidTokenException("The token's subject is not a known user.");
        }
        id = candidate;
        return id;
    }
}
