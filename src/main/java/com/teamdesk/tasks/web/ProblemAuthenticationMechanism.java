package com.teamdesk.tasks.web;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import jakarta.security.enterprise.AuthenticationException;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContextWrapper;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Wraps the platform's MP-JWT authentication mechanism (installed by {@code @LoginConfig}) so that
 * a request with an unusable token — expired, not yet valid, issued in the future, bad signature,
 * wrong issuer, a {@code sub} that is not a UUID string, over-long or non-ASCII — gets a 401
 * {@code application/problem+json} ({@code auth.required}, {@code WWW-Authenticate: Bearer
 * error="invalid_token"}) like every other error, instead of the server's HTML error page.
 * Signature, issuer and expiry are verified by the platform; {@link BearerToken} adds the checks it
 * lacks ({@code nbf}, {@code iat}, the form of {@code sub}, the scheme's case) before delegating.
 *
 * <p>Why a wrapper: the JWT mechanism refuses such a request with {@code sendError(401)} before
 * any filter or JAX-RS mapper runs. As an enabled {@code @Alternative} this bean is the mechanism
 * Jakarta Security resolves; it delegates to the platform's bean with a message context whose
 * {@code responseUnauthorized()} writes the problem body. A request without any token is not
 * refused here: JAX-RS's {@code @RolesAllowed} check answers it through the exception mappers.
 *
 * <p>A token the platform verified is remembered ({@link VerifiedTokens}, bounded, only until its
 * {@code exp}); the next request with exactly that token is logged in with the platform's own earlier
 * result, as the platform's mechanism does it, without verifying the signature again (issue 16).
 * {@code teamdesk.auth.verified-token-cache} sets the size (0 turns it off).
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
@ApplicationScoped
public class ProblemAuthenticationMechanism implements HttpAuthenticationMechanism {
    private static final Logger LOG = Logger.getLogger(ProblemAuthenticationMechanism.class.getName());
    private static final String AUTHORIZATION = "Authorization";

    @Inject
    BeanManager beanManager;

    @Inject
    HttpLimits limits;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.auth.verified-token-cache", defaultValue = "4096")
    int verifiedTokenCache;

    private volatile VerifiedTokens verified;

    private volatile HttpAuthenticationMechanism delegate;

    /**
     * A CONNECT is answered 405 before anything else ({@link RequestFormFilter#refuseConnect}). Then
     * checks the credential's form and time claims ({@link BearerToken#check}); a refused
     * one answers 401 problem+json at once. A usable one, with its scheme normalised to
     * {@code Bearer} (the scheme is case-insensitive, RFC 9110 §11.1), goes to the platform's
     * mechanism, which verifies signature, issuer and expiry.
     */
    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) throws AuthenticationException {
        if (RequestFormFilter.refuseConnect(request, response)) {
            return AuthenticationStatus.SEND_FAILURE; // 405 whoever asks; answered and closed (issue 49)
        }
        String header = request.getHeader(AUTHORIZATION);
        HttpServletRequest forward = request;
        if (header != null) {
            String refusal;
            try {
                refusal = BearerToken.check(header, limits.maxTokenChars(), clock.instant(), limits.clockSkewSeconds());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Bearer token check failed; refusing the token", e);
                refusal = "The bearer token could not be read.";
            }
            if (refusal != null) {
                String why = refusal;
                LOG.fine(() -> "Refused a bearer token: " + why);
                writeUnauthorized(request, response, refusal);
                return AuthenticationStatus.SEND_FAILURE;
            }
            String normalised = "Bearer " + BearerToken.token(header);
            if (!normalised.equals(header)) {
                forward = new HttpServletRequestWrapper(request) {
                    @Override
                    public String getHeader(String name) {
                        return AUTHORIZATION.equalsIgnoreCase(name) ? normalised : super.getHeader(name);
                    }

                    @Override
                    public Enumeration<String> getHeaders(String name) {
                        return AUTHORIZATION.equalsIgnoreCase(name) ? Collections.enumeration(List.of(normalised))
                                : super.getHeaders(name);
                    }
                };
            }
        }
        String token = header == null ? null : BearerToken.token(header);
        if (token != null && !token.isEmpty()) {
            CredentialValidationResult known = verified().get(token, clock.instant());
            if (known != null) { // what Payara 6's JWTAuthenticationMechanism does with a VALID result
                context.getClientSubject().getPrincipals().add(known.getCallerPrincipal());
                return context.notifyContainerAboutLogin(known);
            }
        }
        HttpServletRequest req = forward;
        return delegate().validateRequest(req, response, new HttpMessageContextWrapper(context) {
            @Override
            public AuthenticationStatus notifyContainerAboutLogin(CredentialValidationResult result) {
                if (token != null) {
                    verified().put(token, result);
                }
                return super.notifyContainerAboutLogin(result);
            }

            @Override
            public HttpServletRequest getRequest() {
                return req;
            }

            @Override
            public AuthenticationStatus responseUnauthorized() {
                writeUnauthorized(req, getResponse(), "The bearer token is not valid (expired, wrongly signed or incomplete).");
                return AuthenticationStatus.SEND_FAILURE;
            }
        });
    }

    @Override
    public AuthenticationStatus secureResponse(HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) throws AuthenticationException {
        return delegate().secureResponse(request, response, context);
    }

    @Override
    public void cleanSubject(HttpServletRequest request, HttpServletResponse response, HttpMessageContext context) {
        delegate().cleanSubject(request, response, context);
    }

    private static void writeUnauthorized(HttpServletRequest request, HttpServletResponse response, String detail) {
        Problem p = new Problem(401, "Unauthorized", "auth.required", detail, null);
        response.resetBuffer();
        response.setStatus(401);
        response.setHeader("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        response.setContentType(Problem.MEDIA_TYPE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        try {
            response.getOutputStream().write(p.toJson().getBytes(StandardCharsets.UTF_8));
            response.flushBuffer();
        } catch (IOException | IllegalStateException e) {
            // The client went away; nothing else to tell it.
        }
    }

    private VerifiedTokens verified() {
        VerifiedTokens v = verified;
        if (v == null) {
            v = new VerifiedTokens(Math.max(0, verifiedTokenCache));
            verified = v;
        }
        return v;
    }

    private HttpAuthenticationMechanism delegate() {
        HttpAuthenticationMechanism d = delegate;
        if (d == null) {
            List<Bean<?>> others = beanManager.getBeans(HttpAuthenticationMechanism.class, Any.Literal.INSTANCE).stream()
                    .filter(b -> !b.getBeanClass().equals(ProblemAuthenticationMechanism.class))
                    .toList();
            if (others.size() != 1) {
                throw new IllegalStateException("Expected exactly one platform HttpAuthenticationMechanism (MP-JWT), found "
                        + others);
            }
            Bean<?> bean = others.get(0);
            d = (HttpAuthenticationMechanism) beanManager.getReference(bean, HttpAuthenticationMechanism.class,
                    beanManager.createCreationalContext(bean));
            delegate = d;
        }
        return d;
    }
}
