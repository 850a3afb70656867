package com.teamdesk.tasks.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.teamdesk.tasks.common.InvalidInputException;
import org.junit.jupiter.api.Test;

/** The If-Match rules a ticket and a schedule share (RFC 9110 §13.1.1; issue 31 extracted them from tickets). */
class IfMatchTest {
    private static final int ANY = -1;
    private static final int NONE = -2;

    private static int version(String header) {
        return IfMatch.version(header, "schedule", ANY, NONE);
    }

    @Test
    void aStrongVersionQuotedOrBareStarOrOnlyWeakValidators() {
        assertEquals(3, version("\"3\""));
        assertEquals(3, version(" 3 "));
        assertEquals(ANY, version("*"));
        assertEquals(NONE, version("W/\"3\""), "a weak validator never matches: 412");
        assertEquals(7, version("W/\"3\", \"7\""));
        assertEquals("12", IfMatch.etag(12).getValue());
        assertFalse(IfMatch.etag(12).isWeak(), "a version is a strong validator");
    }

    @Test
    void missingIs428AndAnythingElseIs400InTheResourcesCodes() {
        assertEquals("schedule.if_match_required",
                assertThrows(PreconditionRequiredException.class, () -> version(null)).code());
        assertEquals("schedule.if_match_required",
                assertThrows(PreconditionRequiredException.class, () -> version("  ")).code());
        for (String bad : new String[] {"abc", "\"-1\"", "\"99999999999\"", "\"1\", \"2\"", "\"", "1.5"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> version(bad), bad);
            assertEquals("schedule.if_match_invalid", e.code(), bad);
        }
        assertEquals("ticket.if_match_invalid", assertThrows(InvalidInputException.class,
                () -> IfMatch.version("x", "ticket", ANY, NONE)).code());
    }

    /** Issue 49: only the form our ETags take names a version; "+4" is another entity tag than "4". */
    @Test
    void onlyTheCanonicalFormOfAVersionNamesIt() {
        assertEquals(0, version("\"0\""));
        assertEquals(2147483647, version("\"2147483647\""));
        for (String bad : new String[] {"\"+4\"", "+4", "\"04\"", "\"\u0664\"", "\"\uff14\"", "\"2147483648\"",
                "\"4 \"", "\"-0\""}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> version(bad), bad);
            assertEquals("schedule.if_match_invalid", e.code(), bad);
        }
    }
}
