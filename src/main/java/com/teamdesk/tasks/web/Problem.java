package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.core.Response;

/**
 * An RFC 9457 problem detail as this API sends it: {@code type} (derived from {@code code}),
 * {@code title}, {@code status}, {@code detail}, the stable machine {@code code} and, when known,
 * the request path as {@code instance}.
 *
 * @param instance request path, or null
 */
public record Problem(int status, String title, String code, String detail, String instance) {
    /** Media type of every error answer. */
    public static final String MEDIA_TYPE = "application/problem+json";
    /** Base of the {@code type} URIs; the code is appended. */
    public static final String TYPE_BASE = "https://teamdesk.dev/problems/";
    /** Longest {@code detail} sent (characters); longer ones are cut with an ellipsis. */
    public static final int MAX_DETAIL = 300;

    /** @return the JSON text of this problem */
    public String toJson() {
        JsonObjectBuilder b = Jsons.PROVIDER.createObjectBuilder()
                .add("type", TYPE_BASE + code)
                .add("title", title)
                .add("status", status)
                .add("detail", cap(detail == null ? title : detail, MAX_DETAIL))
                .add("code", code);
        if (instance != null) {
            b.add("instance", instance);
        }
        return b.build().toString();
    }

    private static String cap(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "\u2026";
    }

    /** @return a response with this problem as its {@code application/problem+json} body */
    public Response.ResponseBuilder response() {
        return Response.status(status).type(MEDIA_TYPE).entity(toJson());
    }
}
