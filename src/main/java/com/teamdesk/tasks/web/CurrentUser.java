package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.KnownUsers;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotAuthorizedException;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The authenticated caller of the current request, from the verified JWT. That {@code sub} names a user
 * is asked of {@link KnownUsers}, which remembers users it has seen (users are never deleted).
 */
@RequestScoped
public class CurrentUser {

    @Inject
    JsonWebToken token;

    @Inject
    KnownUsers users;

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
        if (!users.exists(candidate)) { // one JDBC read the first time, remembered after (issue 16)
            throw new InvalidTokenException("The token's subject is not a known user.");
        }
        id = candidate;
        return id;
    }
}
