package dev.apkrelay.client.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Expected texts are what JSON.stringify / JSON.parse give (ECMA-262 25.5, RFC 8259). */
class JsonTest {
  @Test
  void canonicalSortsKeysAtEveryLevelAndKeepsNull() {
    Object v = Json.parse("{\"b\":1,\"a\":{\"z\":[3,{\"y\":null,\"x\":true}],\"c\":\"d\"}}");
    assertEquals("{\"a\":{\"c\":\"d\",\"z\":[3,{\"x\":true,\"y\":null}]},\"b\":1}", Json.canonical(v));
  }

  @Test
  void canonicalSortsByUtf16CodeUnitsAsJavaScriptDoes() {
    // U+FF5E (one unit 0xFF5E) sorts after U+1F680 (surrogates 0xD83D 0xDE80) in UTF-16 order.
    Object v = Json.parse("{\"\uff5e\":1,\"\ud83d\ude80\":2,\"B\":3,\"a\":4}");
    assertEquals("{\"B\":3,\"a\":4,\"\ud83d\ude80\":2,\"\uff5e\":1}", Json.canonical(v));
  }

  @Test
  void stringsAreEscapedAsJsonStringify() {
    assertEquals("\"q\\\" b\\\\ / \\b\\f\\n\\r\\t \\u0001 \\u001f \u00fc\"",
        Json.stringify("q\" b\\ / \b\f\n\r\t \u0001 \u001f \u00fc"));
    assertEquals("\"\\ud800 x \\udc00\"", Json.stringify("\ud800 x \udc00"));
  }

  @Test
  void numbersAreWrittenAsJavaScriptWritesThem() {
    assertEquals("[2,1048576,-7,0,1.5,0.000001,1e-7,1e+21,123456789012345680000,9007199254740992]",
        Json.stringify(Json.parse(
            "[2.0,1048576,-7,-0,1.50,1e-6,1e-7,1e21,123456789012345678901,9007199254740992]")));
  }

  @Test
  void parseGivesJavaScriptValues() {
    Map<String, Object> m = Json.parseObject("{ \"n\": 3, \"s\": \"\\u00e9\\/\", \"l\": [], \"o\": {}, \"t\": false, \"z\": null, \"n\": 4 }");
    assertEquals(4.0, m.get("n"));
    assertEquals("\u00e9/", m.get("s"));
    assertEquals(Arrays.asList(), m.get("l"));
    assertEquals(Boolean.FALSE, m.get("t"));
    assertNull(m.get("z"));
    assertEquals(Long.valueOf(4), Json.asLong(m.get("n")));
    assertNull(Json.asLong(1.5));
  }

  @Test
  void malformedTextIsRefused() {
    for (String bad : new String[] {"", "{", "{\"a\" 1}", "[1,]", "01", "1.", "\"\u0001\"", "tru", "{} x", "'a'"}) {
      assertThrows(Json.JsonException.class, () -> Json.parse(bad), bad);
    }
  }
}
