package dev.apkrelay.client.core.json;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as JavaScript reads and writes it, so that the bytes this library signs, verifies and
 * fingerprints are the ones the server and the TypeScript client produce.
 *
 * <p>{@link #parse} gives {@code Map<String, Object>} (insertion-ordered), {@code List<Object>},
 * {@code String}, {@code Double} (every number, as {@code JSON.parse} does), {@code Boolean} and
 * {@code null}. {@link #stringify} writes like {@code JSON.stringify}; {@link #canonical} also
 * sorts object keys by UTF-16 code units at every level, like {@code canonicalJson} in
 * device-client/core/signed-events.ts. Android's {@code org.json} differs (number types, escaping
 * of '/'), so it is not used for anything that is hashed or signed.
 */
public final class Json {
  private Json() {}

  /** Thrown for text that is not one JSON value. */
  public static final class JsonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    JsonException(String message) {
      super(message);
    }
  }

  public static Object parse(String text) {
    JsonReader reader = new JsonReader(text);
    Object value = reader.value();
    reader.end();
    return value;
  }

  /** The parsed text when it is an object, else a {@link JsonException}. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object value = parse(text);
    if (!(value instanceof Map)) throw new JsonException("not a JSON object");
    return (Map<String, Object>) value;
  }

  public static String stringify(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, false);
    return out.toString();
  }

  public static String canonical(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, true);
    return out.toString();
  }

  /** A small ordered object builder for request bodies. */
  public static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  private static void write(StringBuilder out, Object value, boolean sorted) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String) {
      quote(out, (String) value);
    } else if (value instanceof Boolean) {
      out.append(value.toString());
    } else if (value instanceof Number) {
      out.append(number((Number) value));
    } else if (value instanceof Map) {
      writeObject(out, (Map<?, ?>) value, sorted);
    } else if (value instanceof List) {
      out.append('[');
      boolean first = true;
      for (Object item : (List<?>) value) {
        if (!first) out.append(',');
        first = false;
        write(out, item, sorted);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
    }
  }

  private static void writeObject(StringBuilder out, Map<?, ?> map, boolean sorted) {
    List<String> keys = new ArrayList<>();
    for (Object key : map.keySet()) keys.add((String) key);
    // String.compareTo compares UTF-16 code units, as JavaScript's < does.
    if (sorted) Collections.sort(keys);
    out.append('{');
    boolean first = true;
    for (String key : keys) {
      if (!first) out.append(',');
      first = false;
      quote(out, key);
      out.append(':');
      write(out, map.get(key), sorted);
    }
    out.append('}');
  }

  /** JSON.stringify's string escaping (ES2019: lone surrogates escaped, '/' not). */
  static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        default:
          if (c < 0x20 || isLoneSurrogate(s, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static boolean isLoneSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }

  /**
   * ECMAScript Number::toString. The digits come from Double.toString, which is the shortest
   * round-trip form for all but rare values before JDK 19; integers below 2^53 are always exact.
   */
  static String number(Number n) {
    return number(n.doubleValue());
  }

  static String number(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
    if (d == 0) return "0";
    if (d < 0) return "-" + number(-d);
    BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    int k = digits.length();
    int n = k - exact.scale();
    StringBuilder out = new StringBuilder();
    if (k <= n && n <= 21) {
      out.append(digits);
      for (int i = 0; i < n - k; i++) out.append('0');
    } else if (0 < n && n <= 21) {
      out.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      out.append("0.");
      for (int i = 0; i < -n; i++) out.append('0');
      out.append(digits);
    } else {
      out.append(digits.charAt(0));
      if (k > 1) out.append('.').append(digits, 1, k);
      out.append('e').append(n - 1 >= 0 ? "+" : "-").append(Math.abs(n - 1));
    }
    return out.toString();
  }

  /** A JSON number that is a whole number within ±2^53, as a long; else null. */
  public static Long asLong(Object value) {
    if (!(value instanceof Number)) return null;
    double d = ((Number) value).doubleValue();
    if (d != Math.rint(d) || Math.abs(d) > 9007199254740992d) return null;
    return (long) d;
  }
}
