package com.teamdesk.tasks.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonValue;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** Issue 49: client scalars read strictly — ASCII digits, exact integers, ASCII names, visible text. */
class ClientValuesTest {
    enum Colour { RED, DIGEST }

    private static JsonValue json(String text) {
        try (var r = Jsons.PROVIDER.createReader(new StringReader(text))) {
            return r.readValue();
        }
    }

    @Test
    void numbersAreAsciiDigitsInRangeNeverWrapped() {
        assertEquals(5, ClientValues.intOf("5"));
        assertEquals(-1, ClientValues.intOf(" -1 "));
        assertEquals(Integer.MAX_VALUE, ClientValues.intOf("2147483647"));
        assertEquals(Integer.MIN_VALUE, ClientValues.intOf("-2147483648"));
        for (String bad : new String[] {"\u0665", "\uff15", "+5", "2147483648", "-2147483649", "4294967297", "", "-",
                "1e3", "0x10", "5\u2028", "99999999999999999999"}) {
            assertNull(ClientValues.intOf(bad), bad);
        }
        assertEquals(123456789012345678L, ClientValues.longOf("123456789012345678"));
        assertNull(ClientValues.longOf("1234567890123456789"), "more than 18 digits");
        assertNull(ClientValues.longOf("\u0661\u0662"));
    }

    @Test
    void jsonNumbersAreTakenOnlyWhenExactInts() {
        assertEquals(100, ClientValues.intOf(json("100")));
        assertEquals(-3, ClientValues.intOf(json("-3")));
        for (String bad : new String[] {"4294967297", "4294967396", "2147483648", "1.5", "1.0", "1e2", "\"5\"", "null",
                "true", "[1]"}) {
            assertNull(ClientValues.intOf(json(bad)), bad);
        }
        assertNull(ClientValues.intOf((JsonValue) null));
    }

    @Test
    void namesMatchInAsciiOnlyWithoutLocaleFolds() {
        assertEquals(Colour.DIGEST, ClientValues.enumOf(Colour.class, " digest "));
        assertEquals(Colour.RED, ClientValues.enumOf(Colour.class, "Red"));
        assertNull(ClientValues.enumOf(Colour.class, "d\u0131gest"), "dotless i upper-cases to I in Java");
        assertNull(ClientValues.enumOf(Colour.class, "DIGE\u017fT"), "long s upper-cases to S in Java");
        assertNull(ClientValues.enumOf(Colour.class, "RED\u200b"));
        assertNull(ClientValues.enumOf(Colour.class, null));
        assertEquals("DIGEST", ClientValues.asciiName("digest"));
        assertNull(ClientValues.asciiName("dıgest"));
    }

    @Test
    void aNameMustHoldSomethingVisible() {
        assertTrue(ClientText.visible("a"));
        assertTrue(ClientText.visible(" \u200b周报 "));
        assertTrue(ClientText.visible("😀"));
        for (String blank : new String[] {"", " ", "\u200b", "\u200b\u200c\u200d\ufeff", "\u2028", "\u3000", "\u3164",
                "\u2800", "\u0301", "\t\u00a0"}) {
            assertFalse(ClientText.visible(blank), "U+" + (blank.isEmpty() ? "" : Integer.toHexString(blank.charAt(0))));
        }
        assertFalse(ClientText.visible(null));
    }
}
