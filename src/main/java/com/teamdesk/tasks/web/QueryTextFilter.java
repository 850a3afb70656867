package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.InvalidInputException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import java.util.List;

/**
 * Refuses query parameters PostgreSQL cannot store or compare ({@code ?q=%00}) with 400
 * {@code request.malformed}, before they reach a query. Runs after authentication and the
 * {@code @RolesAllowed} check, so an unauthenticated request still gets its 401.
 */
@Provider
@Priority(Priorities.USER)
public class QueryTextFilter implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        for (List<String> values : request.getUriInfo().getQueryParameters().values()) {
            for (String v : values) {
                if (!RequestInput.storable(v)) {
                    throw new InvalidInputException("request.malformed", RequestInput.UNSTORABLE);
                }
            }
        }
    }
}
