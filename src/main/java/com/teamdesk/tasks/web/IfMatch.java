package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.common.InvalidInputException;
import jakarta.ws.rs.core.EntityTag;

/**
 * Optimistic concurrency over HTTP for a versioned resource (a ticket, a schedule): its integer version is its
 * strong {@code ETag} ({@code "3"}), and a change must name it in {@code If-Match} (RFC 9110 §13.1.1).
 */
final class IfMatch {
    private IfMatch() {
    }

    /** @return the strong entity tag of a version: {@code "3"} */
    static EntityTag etag(int version) {
        return new EntityTag(Integer.toString(version));
    }

    /**
     * Reads the expected version from If-Match: {@code *} matches any current version; {@code "3"} (or a bare
     * {@code 3}) names version 3; a weak validator {@code W/"3"} never matches (strong comparison), so a header of
     * only weak validators is a 412.
     *
     * @param resource  the resource's name in the codes and details, e.g. {@code ticket}
     * @param any       the service's value for {@code *}
     * @param noVersion the service's value for "no strong validator" (which it answers with 412)
     * @return the version, {@code any} or {@code noVersion}
     * @throws PreconditionRequiredException ({@code <resource>.if_match_required}) no If-Match
     * @throws InvalidInputException         ({@code <resource>.if_match_invalid}) not a version, or two
     */
    static int version(String ifMatch, String resource, int any, int noVersion) {
        if (ifMatch == null || ifMatch.isBlank()) {
            throw new PreconditionRequiredException(resource + ".if_match_required",
                    "Send If-Match with the " + resource + "'s version (from GET or the ETag).");
        }
        if (ifMatch.strip().equals("*")) {
            return any;
        }
        Integer strong = null;
        for (String part : ifMatch.split(",", -1)) {
            String v = part.strip();
            if (v.startsWith("W/")) {
                continue;
            }
            if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                v = v.substring(1, v.length() - 1);
            }
            // only the form an ETag of ours takes: no sign, no leading zero, ASCII digits ("+4" is not "4", issue 49)
            Integer n = v.matches("0|[1-9][0-9]{0,9}") ? ClientValues.intOf(v) : null;
            if (n == null || strong != null) {
                throw new InvalidInputException(resource + ".if_match_invalid",
                        "If-Match must be the " + resource + "'s version, e.g. \"3\", or *.");
            }
            strong = n;
        }
        return strong == null ? noVersion : strong;
    }
}
