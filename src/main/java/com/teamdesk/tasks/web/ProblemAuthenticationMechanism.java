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
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Wraps the platform's MP-JWT authentication mechanism (installed by {@code @LoginConfig}) so that
 * a request with an unusable token — expired, bad signature, wrong issuer, missing claims — gets a
 * 401 {@code application/problem+json} ({@code auth.required}) like every other error, instead
 * of the server's HTML error page. Authentication itself is entirely the platform's: this class
 * only replaces how the refusal is written.
 *
 * <p>Why a wrapper: the JWT mechanism refuses such a request with {@code sendError(401)} before
 * any filter or JAX-RS mapper runs. As an enabled {@code @Alternative} this bean is the mechanism
 * Jakarta Security resolves; it delegates to the platform's bean with a message context whose
 * {@code responseUnauthorized()} writes the problem body. A request without any token is not
 * refused here: JAX-RS's {@code @RolesAllowed} check answers it through the exception mappers.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
@ApplicationScoped
public class ProblemAuthenticationMechanism implements HttpAuthenticationMechanism {

    @Inject
    BeanManager beanManager;

    private volatile HttpAuthenticationMechanism delegate;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) throws AuthenticationException {
        return delegate().validateRequest(request, response, new HttpMessageContextWrapper(context) {
            @Override
            public AuthenticationStatus responseUnauthorized() {
                writeUnauthorized(getRequest(), getResponse());
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

    private static void writeUnauthorized(HttpServletRequest request, HttpServletResponse response) {
        Problem p = new Problem(401, "Unauthorized", "auth.required",
                "The bearer token is not valid (expired, wrongly signed or incomplete).", request.getRequestURI());
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
