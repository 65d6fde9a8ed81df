package dev.fencing.receiver.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.fencing.internal.Validate;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;

/**
 * Checks JSON text with Jackson's streaming parser, for a receiver whose store does not judge it.
 * It judges syntax only: an escaped NUL or a lone surrogate escape is JSON text, although
 * PostgreSQL's {@code jsonb} refuses both.
 */
final class JsonText {

  /**
   * Jackson's default limits (1000 levels, 1000-digit numbers, 50,000-character names) would refuse
   * JSON that {@code jsonb} stores; the text is only tokenized, never kept as a tree, so none
   * applies. Names are not canonicalized: payloads' names need not outlive the check.
   */
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(Integer.MAX_VALUE)
                  .maxNumberLength(Integer.MAX_VALUE)
                  .maxNameLength(Integer.MAX_VALUE)
                  .maxStringLength(Integer.MAX_VALUE)
                  .build())
          .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
          .build();

  private JsonText() {}

  /**
   * Checks that {@code json} is exactly one JSON value (RFC 8259), with nothing but whitespace
   * around it.
   *
   * @param parameter the parameter's name, for the message
   * @throws IllegalArgumentException naming the parameter, the value and what is wrong with it
   */
  static void check(String parameter, String json) {
    try (JsonParser parser = FACTORY.createParser(json)) {
      if (parser.nextToken() == null) {
        throw refused(parameter, json, "no value", null);
      }
      parser.skipChildren();
      if (parser.nextToken() != null) {
        throw refused(parameter, json, "a second value " + at(parser.currentTokenLocation()), null);
      }
    } catch (JsonProcessingException e) {
      throw refused(parameter, json, e.getOriginalMessage() + " " + at(e.getLocation()), e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a string", e); // a StringReader does not fail
    }
  }

  private static IllegalArgumentException refused(
      String parameter, String json, String reason, @Nullable Exception cause) {
    return new IllegalArgumentException(
        parameter
            + " must be exactly one JSON value ("
            + reason
            + "), but was "
            + Validate.quote(json),
        cause);
  }

  private static String at(@Nullable JsonLocation location) {
    return location == null
        ? "at an unknown place"
        : "at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }
}
