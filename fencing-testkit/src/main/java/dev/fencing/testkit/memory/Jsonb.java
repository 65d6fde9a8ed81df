package dev.fencing.testkit.memory;

import dev.fencing.internal.Validate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * JSON as PostgreSQL's {@code jsonb} takes it and prints it back, so that a queue in memory refuses
 * what the PostgreSQL queue refuses and returns what it returns: RFC 8259 text without an escaped
 * NUL or a lone surrogate, printed with {@code ", "} and {@code ": "}, object keys shorter first
 * (then by their UTF-8 bytes), the last of duplicate keys kept, and numbers as {@code numeric}
 * prints them ({@code 1e2} is {@code 100}, {@code 1.50} stays {@code 1.50}). Nesting is parsed
 * without recursion, so any depth is taken; the server's stack-depth limit is not modelled. Checked
 * against the server by {@code JsonbAgreesWithPostgresTest}.
 */
final class Jsonb {

  /**
   * A JSON value as {@code jsonb} holds it.
   *
   * @param text as {@code jsonb::text} prints it
   * @param identity equal for two values exactly when {@code jsonb}'s {@code =} holds (numbers
   *     compared by value)
   */
  record Value(String text, String identity) {}

  private Jsonb() {}

  /**
   * Returns {@code json} as {@code jsonb} holds it.
   *
   * @param parameter the parameter's name, for the message
   * @throws IllegalArgumentException naming the parameter, the value and what is wrong with it
   */
  static Value parse(String parameter, @Nullable String json) {
    Validate.json(parameter, json);
    try {
      JsonbParser.Node node = new JsonbParser(json).document();
      StringBuilder text = new StringBuilder(json.length());
      StringBuilder identity = new StringBuilder(json.length());
      render(node, text, false);
      render(node, identity, true);
      return new Value(text.toString(), identity.toString());
    } catch (JsonbParser.Refusal e) {
      throw new IllegalArgumentException(
          parameter
              + " must be JSON that PostgreSQL jsonb accepts, but was "
              + Validate.quote(json)
              + " ("
              + e.getMessage()
              + ")");
    }
  }

  /** Prints {@code root} as {@code jsonb} does, or its identity; without recursion. */
  private static void render(JsonbParser.Node root, StringBuilder out, boolean identity) {
    Deque<Object> work = new ArrayDeque<>();
    work.push(root);
    while (!work.isEmpty()) {
      Object next = work.pop();
      switch (next) {
        case String literal -> out.append(literal);
        case JsonbParser.Scalar scalar -> out.append(identity ? scalar.identity() : scalar.text());
        case JsonbParser.Array array -> {
          work.push("]");
          List<JsonbParser.Node> items = array.items();
          for (int k = items.size() - 1; k >= 0; k--) {
            work.push(items.get(k));
            if (k > 0) {
              work.push(", ");
            }
          }
          out.append('[');
        }
        case JsonbParser.Obj object -> {
          work.push("}");
          List<Map.Entry<String, JsonbParser.Node>> members =
              new ArrayList<>(object.members().entrySet());
          for (int k = members.size() - 1; k >= 0; k--) {
            work.push(members.get(k).getValue());
            work.push(JsonbParser.quoted(members.get(k).getKey()) + ": ");
            if (k > 0) {
              work.push(", ");
            }
          }
          out.append('{');
        }
        default -> throw new IllegalStateException("not a node: " + next);
      }
    }
  }
}
