package dev.apkrelay.client.core.json;

import dev.apkrelay.client.core.json.Json.JsonException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict RFC 8259 reader with JSON.parse's results (numbers as Double, last duplicate wins). */
final class JsonReader {
  private static final int MAX_DEPTH = 64;
  private final String s;
  private int i;
  private int depth;

  JsonReader(String text) {
    this.s = text;
  }

  void end() {
    skipSpace();
    if (i != s.length()) throw fail("unexpected text after the value");
  }

  Object value() {
    skipSpace();
    if (i >= s.length()) throw fail("unexpected end");
    char c = s.charAt(i);
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return literal("true", Boolean.TRUE);
      case 'f': return literal("false", Boolean.FALSE);
      case 'n': return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        throw fail("unexpected character");
    }
  }

  private Map<String, Object> object() {
    enter();
    i++;
    Map<String, Object> map = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      i++;
      depth--;
      return map;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') throw fail("expected a key");
      String key = string();
      skipSpace();
      expect(':');
      map.put(key, value());
      skipSpace();
      char c = next();
      if (c == '}') break;
      if (c != ',') throw fail("expected , or }");
    }
    depth--;
    return map;
  }

  private List<Object> array() {
    enter();
    i++;
    List<Object> list = new ArrayList<>();
    skipSpace();
    if (peek() == ']') {
      i++;
      depth--;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpace();
      char c = next();
      if (c == ']') break;
      if (c != ',') throw fail("expected , or ]");
    }
    depth--;
    return list;
  }

  private String string() {
    i++;
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') return out.toString();
      if (c < 0x20) throw fail("control character in a string");
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"': out.append('"'); break;
        case '\\': out.append('\\'); break;
        case '/': out.append('/'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'u':
          if (i + 4 > s.length()) throw fail("short \\u escape");
          try {
            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          } catch (NumberFormatException ex) {
            throw fail("bad \\u escape");
          }
          i += 4;
          break;
        default: throw fail("bad escape");
      }
    }
  }

  private Double number() {
    int start = i;
    if (peek() == '-') i++;
    if (peek() == '0') {
      i++;
    } else if (digits() == 0) {
      throw fail("bad number");
    }
    if (peek() == '.') {
      i++;
      if (digits() == 0) throw fail("bad fraction");
    }
    if (peek() == 'e' || peek() == 'E') {
      i++;
      if (peek() == '+' || peek() == '-') i++;
      if (digits() == 0) throw fail("bad exponent");
    }
    return Double.valueOf(s.substring(start, i));
  }

  private int digits() {
    int start = i;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
    return i - start;
  }

  private Object literal(String word, Object value) {
    if (!s.startsWith(word, i)) throw fail("unexpected word");
    i += word.length();
    return value;
  }

  private void enter() {
    if (++depth > MAX_DEPTH) throw fail("nested too deeply");
  }

  private void skipSpace() {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      i++;
    }
  }

  private char peek() {
    return i < s.length() ? s.charAt(i) : '\0';
  }

  private char next() {
    if (i >= s.length()) throw fail("unexpected end");
    return s.charAt(i++);
  }

  private void expect(char c) {
    if (next() != c) throw fail("expected " + c);
  }

  private JsonException fail(String what) {
    return new JsonException("JSON: " + what + " at " + i);
  }
}
