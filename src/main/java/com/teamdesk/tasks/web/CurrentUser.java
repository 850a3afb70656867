package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.KnownUsers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.NotAuthorizedException;
import java.security.Principal;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The authenticated caller of the current request, from the verified JWT. That {@code sub} names a user
 * is asked of {@link KnownUsers}, which remembers users it has seen (users are never deleted).
 *
 * <p>One bean for the application: it reads the request's caller principal (the platform's
 * {@link JsonWebToken}, set by the authentication mechanism) from the current servlet request each time, so no
 * request-scoped bean and no {@code JsonWebToken} producer is created per request (issue 33: together 6 % of the
 * request threads' CPU on {@code POST …/tasks}). Only callable on a request's thread.
 */
@ApplicationScoped
public class CurrentUser {

    @Inject
    HttpServletRequest request;

    @Inject
    KnownUsers users;

    /**
     * @return the caller's user id, the token's {@code sub}, once it is known to name a user
     * @throws NotAuthorizedException (401 {@code auth.required}) no verified token
     * @throws InvalidTokenException  (401 {@code auth.required}, {@code error="invalid_token"}) a
     *                                {@code sub} that is not a UUID or names no user
     */
    public UUID id() {
        Principal caller = request.getUserPrincipal();
        String sub = caller instanceof JsonWebToken token ? token.getSubject() : null;
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
        return candidate;
    }
}
