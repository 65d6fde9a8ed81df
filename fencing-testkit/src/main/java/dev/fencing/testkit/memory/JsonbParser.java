package dev.fencing.testkit.memory;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Reads one JSON text by PostgreSQL's grammar into nodes as {@code jsonb} holds them (keys in its
 * order, strings printed as it prints them), its open containers on a stack of its own rather than
 * the thread's, so that any depth is read. {@code Jsonb} prints the nodes.
 */
final class JsonbParser {

  /** {@code numeric}'s most digits after the point: its display scale is 14 bits. */
  private static final int MAX_SCALE = 0x3FFF;

  /** {@code numeric}'s most digits before the point: 32,768 base-10000 digits. */
  private static final int MAX_INTEGER_DIGITS = 32_768 * 4;

  sealed interface Node permits Scalar, Array, Obj {}

  /** A string, number or literal, printed as {@code text}, compared as {@code identity}. */
  record Scalar(String text, String identity) implements Node {}

  record Array(List<Node> items) implements Node {}

  /** Keys in {@code jsonb}'s order; a later duplicate replaced an earlier one. */
  record Obj(TreeMap<String, Node> members) implements Node {}

  /** Shorter keys first, then by their UTF-8 bytes, unsigned: {@code jsonb}'s key order. */
  static int keyOrder(String a, String b) {
    byte[] x = a.getBytes(StandardCharsets.UTF_8);
    byte[] y = b.getBytes(StandardCharsets.UTF_8);
    return x.length != y.length
        ? Integer.compare(x.length, y.length)
        : Arrays.compareUnsigned(x, y);
  }

  /** {@code value} in quotes, escaped as {@code jsonb} prints strings. */
  static String quoted(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int k = 0; k < value.length(); k++) {
      char c = value.charAt(k);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < ' ') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** What is wrong with the text, and where. */
  static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refusal(String message) {
      super(message, null, false, false);
    }
  }

  /** A container being filled: an array, or an object with the key of its next member. */
  private static final class Open {
    final @Nullable List<Node> items;
    final @Nullable TreeMap<String, Node> members;
    @Nullable String key;

    Open(boolean array) {
      this.items = array ? new ArrayList<>() : null;
      this.members = array ? null : new TreeMap<>(JsonbParser::keyOrder);
    }

    void add(Node value) {
      if (items != null) {
        items.add(value);
      } else {
        members.put(key, value);
      }
    }

    Node close() {
      return items != null ? new Array(items) : new Obj(members);
    }
  }

  private final String s;
  private int i;

  JsonbParser(String s) {
    this.s = s;
  }

  Node document() {
    Deque<Open> open = new ArrayDeque<>();
    skipSpace();
    while (true) {
      Node value;
      char c = peek("a value");
      if (c == '{' || c == '[') {
        i++;
        skipSpace();
        char close = c == '{' ? '}' : ']';
        if (peek("a value or '" + close + "'") == close) {
          i++;
          value = c == '{' ? new Obj(new TreeMap<>(JsonbParser::keyOrder)) : new Array(List.of());
        } else {
          Open container = new Open(c == '[');
          open.push(container);
          if (c == '{') {
            memberKey(container);
          }
          continue;
        }
      } else {
        value = scalar(c);
      }
      while (true) {
        Open top = open.peek();
        if (top == null) {
          skipSpace();
          if (i < s.length()) {
            throw new Refusal("unexpected " + describe(i) + " after the value");
          }
          return value;
        }
        top.add(value);
        skipSpace();
        char next = peek(top.items != null ? "',' or ']'" : "',' or '}'");
        i++;
        if (next == ',') {
          skipSpace();
          if (top.members != null) {
            memberKey(top);
          }
          break;
        }
        if (next != (top.items != null ? ']' : '}')) {
          i--;
          throw new Refusal(
              "expected "
                  + (top.items != null ? "',' or ']'" : "',' or '}'")
                  + " but found "
                  + describe(i));
        }
        open.pop();
        value = top.close();
      }
    }
  }

  private void memberKey(Open object) {
    if (peek("a string key") != '"') {
      throw new Refusal("expected a string key but found " + describe(i));
    }
    object.key = string();
    skipSpace();
    if (peek("':'") != ':') {
      throw new Refusal("expected ':' but found " + describe(i));
    }
    i++;
    skipSpace();
  }

  private Node scalar(char c) {
    if (c == '"') {
      String value = string();
      String text = quoted(value);
      return new Scalar(text, text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    int start = i;
    while (i < s.length() && wordChar(s.charAt(i))) {
      i++;
    }
    String word = s.substring(start, i);
    if (word.equals("true") || word.equals("false") || word.equals("null")) {
      return new Scalar(word, word);
    }
    i = start;
    throw new Refusal("unexpected " + describe(start));
  }

  /** {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}, then no letter or digit. */
  private Node number() {
    int start = i;
    if (s.charAt(i) == '-') {
      i++;
    }
    if (i < s.length() && s.charAt(i) == '0') {
      i++;
    } else if (!digits()) {
      throw badNumber(start);
    }
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      if (!digits()) {
        throw badNumber(start);
      }
    }
    if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      if (!digits()) {
        throw badNumber(start);
      }
    }
    if (i < s.length() && wordChar(s.charAt(i))) {
      throw badNumber(start);
    }
    String token = s.substring(start, i);
    if (exponentTooLarge(token)) {
      throw outOfRange(token);
    }
    BigDecimal value = new BigDecimal(token);
    if (value.scale() > MAX_SCALE
        || (value.signum() != 0 && (long) value.precision() - value.scale() > MAX_INTEGER_DIGITS)) {
      throw outOfRange(token);
    }
    BigDecimal shown =
        value.scale() >= 0 ? value : value.signum() == 0 ? BigDecimal.ZERO : value.setScale(0);
    return new Scalar(shown.toPlainString(), value.stripTrailingZeros().toString());
  }

  /** Whether the exponent passes {@code numeric}'s bound of half the largest int. */
  private static boolean exponentTooLarge(String token) {
    int e = Math.max(token.indexOf('e'), token.indexOf('E'));
    if (e < 0) {
      return false;
    }
    String digits = token.substring(e + 1).replaceFirst("^[+-]", "").replaceFirst("^0+", "");
    return digits.length() > 10 || Long.parseLong("0" + digits) > Integer.MAX_VALUE / 2;
  }

  private static Refusal outOfRange(String token) {
    return new Refusal("the number " + token + " is out of numeric's range");
  }

  private boolean digits() {
    int start = i;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    return i > start;
  }

  private Refusal badNumber(int start) {
    int end = i;
    while (end < s.length() && wordChar(s.charAt(end))) {
      end++;
    }
    return new Refusal(
        "the token "
            + s.substring(start, Math.max(end, i))
            + " at index "
            + start
            + " is not a number");
  }

  /** Reads a string token from its opening quote; returns its value. */
  private String string() {
    int start = i++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (i >= s.length()) {
        throw new Refusal("the string at index " + start + " is not closed");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return out.toString();
      }
      if (c < ' ') {
        throw new Refusal(
            "character with value 0x" + hex(c) + " at index " + (i - 1) + " must be escaped");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i < s.length()
            && Character.isLowSurrogate(s.charAt(i))) {
          out.append(c).append(s.charAt(i++));
          continue;
        }
        throw new Refusal("a lone surrogate at index " + (i - 1) + " cannot be stored");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      escape(out);
    }
  }

  private void escape(StringBuilder out) {
    if (i >= s.length()) {
      throw new Refusal("the string ends in an escape");
    }
    char e = s.charAt(i++);
    switch (e) {
      case '"', '\\', '/' -> out.append(e);
      case 'b' -> out.append('\b');
      case 'f' -> out.append('\f');
      case 'n' -> out.append('\n');
      case 'r' -> out.append('\r');
      case 't' -> out.append('\t');
      case 'u' -> {
        int at = i - 2;
        char unit = unicode(at);
        if (unit == 0) {
          throw new Refusal("\\u0000 at index " + at + " cannot be converted to text");
        }
        if (Character.isLowSurrogate(unit)) {
          throw new Refusal("a low surrogate at index " + at + " must follow a high surrogate");
        }
        if (Character.isHighSurrogate(unit)) {
          if (i + 1 >= s.length() || s.charAt(i) != '\\' || s.charAt(i + 1) != 'u') {
            throw new Refusal("a high surrogate at index " + at + " must be followed by a low");
          }
          i += 2;
          char low = unicode(i - 2);
          if (!Character.isLowSurrogate(low)) {
            throw new Refusal("a high surrogate at index " + at + " must be followed by a low");
          }
          out.append(unit).append(low);
        } else {
          out.append(unit);
        }
      }
      default -> throw new Refusal("the escape \\" + e + " at index " + (i - 2) + " is not JSON");
    }
  }

  /** Reads the four hex digits after a {@code \\u} that starts at {@code at}. */
  private char unicode(int at) {
    if (i + 4 > s.length()) {
      throw new Refusal("the escape at index " + at + " wants four hex digits");
    }
    int value = 0;
    for (int k = 0; k < 4; k++) {
      int digit = Character.digit(s.charAt(i + k), 16);
      if (digit < 0 || s.charAt(i + k) > 'f') {
        throw new Refusal("the escape at index " + at + " wants four hex digits");
      }
      value = value * 16 + digit;
    }
    i += 4;
    return (char) value;
  }

  private void skipSpace() {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      i++;
    }
  }

  private char peek(String expected) {
    if (i >= s.length()) {
      throw new Refusal("the text ends where " + expected + " was expected");
    }
    return s.charAt(i);
  }

  private String describe(int at) {
    if (at >= s.length()) {
      return "the end";
    }
    char c = s.charAt(at);
    return (c < ' ' ? "character 0x" + hex(c) : "'" + c + "'") + " at index " + at;
  }

  /** Letters, digits, {@code _} and anything beyond ASCII: PostgreSQL reads them as one token. */
  private static boolean wordChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c > 0x7F;
  }

  private static String hex(char c) {
    return String.format("%02x", (int) c);
  }
}
