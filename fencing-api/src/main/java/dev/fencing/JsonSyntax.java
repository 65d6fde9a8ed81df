package dev.fencing;

/**
 * A strict RFC 8259 syntax check, so that every backend refuses malformed JSON before anything is
 * written, without a JSON library in the API module.
 */
final class JsonSyntax {

  private static final int MAX_DEPTH = 512;

  private final String text;
  private int pos;

  private JsonSyntax(String text) {
    this.text = text;
  }

  /** Returns the offset of the first syntax error, or -1 when {@code text} is one JSON value. */
  static int firstError(String text) {
    JsonSyntax parser = new JsonSyntax(text);
    try {
      parser.skipSpace();
      parser.value(0);
      parser.skipSpace();
      return parser.pos == text.length() ? -1 : parser.pos;
    } catch (Malformed e) {
      return parser.pos;
    }
  }

  private void value(int depth) {
    if (depth > MAX_DEPTH) {
      throw new Malformed();
    }
    switch (peek()) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private void object(int depth) {
    pos++;
    skipSpace();
    if (peek() == '}') {
      pos++;
      return;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw new Malformed();
      }
      string();
      skipSpace();
      expect(':');
      skipSpace();
      value(depth + 1);
      skipSpace();
      if (peek() == ',') {
        pos++;
      } else {
        expect('}');
        return;
      }
    }
  }

  private void array(int depth) {
    pos++;
    skipSpace();
    if (peek() == ']') {
      pos++;
      return;
    }
    while (true) {
      skipSpace();
      value(depth + 1);
      skipSpace();
      if (peek() == ',') {
        pos++;
      } else {
        expect(']');
        return;
      }
    }
  }

  private void string() {
    pos++;
    while (true) {
      char c = next();
      if (c == '"') {
        return;
      }
      if (c < 0x20) {
        pos--;
        throw new Malformed();
      }
      if (c == '\\') {
        char escape = next();
        if (escape == 'u') {
          for (int i = 0; i < 4; i++) {
            if (Character.digit(next(), 16) < 0) {
              pos--;
              throw new Malformed();
            }
          }
        } else if ("\"\\/bfnrt".indexOf(escape) < 0) {
          pos--;
          throw new Malformed();
        }
      }
    }
  }

  private void number() {
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else {
      digits();
    }
    if (peek() == '.') {
      pos++;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      digits();
    }
  }

  private void digits() {
    int start = pos;
    while (pos < text.length() && Character.isDigit(text.charAt(pos)) && text.charAt(pos) < 128) {
      pos++;
    }
    if (pos == start) {
      throw new Malformed();
    }
  }

  private void literal(String word) {
    if (!text.startsWith(word, pos)) {
      throw new Malformed();
    }
    pos += word.length();
  }

  private void expect(char c) {
    if (peek() != c) {
      throw new Malformed();
    }
    pos++;
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private char next() {
    if (pos >= text.length()) {
      throw new Malformed();
    }
    return text.charAt(pos++);
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private static final class Malformed extends RuntimeException {
    Malformed() {
      super(null, null, false, false);
    }
  }
}
