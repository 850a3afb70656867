package com.teamdesk.tasks.web;

import jakarta.annotation.Priority;
import jakarta.annotation.security.DenyAll;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Enforces {@code @RolesAllowed}, {@code @PermitAll} and {@code @DenyAll} on the JAX-RS resources
 * ourselves, with the standard API only, so the WAR behaves the same on Payara Micro and Payara Server.
 *
 * <p>Payara registers its own filter for these annotations only when Jersey starts inside a
 * deployment ({@code RolesAllowedAutoDiscoverable} needs a current deployment context). On Payara
 * Micro it does; on Payara Server 6.2025.10 after {@code asadmin deploy} it did not, and no role was
 * checked: any valid token, a customer's included, reached {@code /api/v1/admin} (found by
 * {@code ./teamdesk server-smoke}). Where Payara's filter is present too, both agree: they ask the
 * same {@link SecurityContext#isUserInRole}. The method's annotation wins over the class's.
 */
@Provider
public class RolesAllowedFeature implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        Class<?> type = resource.getResourceClass();
        if (method == null || type == null) {
            return;
        }
        if (method.isAnnotationPresent(DenyAll.class)) {
            context.register(new Check(List.of()));
        } else if (method.isAnnotationPresent(RolesAllowed.class)) {
            context.register(new Check(List.of(method.getAnnotation(RolesAllowed.class).value())));
        } else if (method.isAnnotationPresent(PermitAll.class)) {
            return;
        } else if (type.isAnnotationPresent(DenyAll.class)) {
            context.register(new Check(List.of()));
        } else if (type.isAnnotationPresent(RolesAllowed.class)) {
            context.register(new Check(List.of(type.getAnnotation(RolesAllowed.class).value())));
        }
    }

    /** 401 without an authenticated caller, 403 when the caller has none of the roles (problem+json by the mappers). */
    @Priority(Priorities.AUTHORIZATION)
    static final class Check implements ContainerRequestFilter {
        private final List<String> roles;

        Check(List<String> roles) {
            this.roles = roles;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            SecurityContext security = request.getSecurityContext();
            if (security == null || security.getUserPrincipal() == null) {
                throw new NotAuthorizedException("No verified bearer token.", "Bearer");
            }
            for (String role : roles) {
                if (security.isUserInRole(role)) {
                    return;
                }
            }
            throw new ForbiddenException("Caller not in any of the roles " + roles);
        }
    }
}
