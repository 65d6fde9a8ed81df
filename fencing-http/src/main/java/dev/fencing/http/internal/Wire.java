package dev.fencing.http.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The wire format: every body is one flat JSON object of strings, integers and booleans. A
 * delivery's payload travels as a string holding its JSON text, so the server hands it to the
 * backing receiver byte for byte and the store alone judges whether it is JSON.
 */
final class Wire {

  private static final JsonFactory JSON = new JsonFactory();

  private Wire() {}

  /** One value of a flat object: its token type and its text. */
  record Value(JsonToken type, String text) {}

  /** The body was not a flat JSON object; {@code field} is the field at fault, or "body". */
  static final class BadBody extends Exception {
    private static final long serialVersionUID = 1L;
    final String field;

    BadBody(String field, String message) {
      super(message, null, false, false);
      this.field = field;
    }
  }

  /**
   * Reads {@code body} as one flat JSON object.
   *
   * @throws BadBody if it is not JSON, not an object, nests, repeats a field or has trailing text
   */
  static Map<String, Value> read(byte[] body) throws BadBody {
    Map<String, Value> fields = new LinkedHashMap<>();
    try (JsonParser parser = JSON.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new BadBody("body", "body must be a JSON object");
      }
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_OBJECT;
          token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value.isStructStart()) {
          throw new BadBody(name, name + " must be a string, number or boolean, not nested");
        }
        if (fields.put(name, new Value(value, parser.getText())) != null) {
          throw new BadBody(name, name + " appears twice");
        }
      }
      if (parser.nextToken() != null) {
        throw new BadBody("body", "body must hold one JSON object and nothing after it");
      }
    } catch (JsonProcessingException e) {
      throw new BadBody("body", "body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadBody("body", "body could not be read: " + e.getMessage());
    }
    return fields;
  }

  /** Writes one flat JSON object. */
  static byte[] write(Consumer<JsonGenerator> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator generator = JSON.createGenerator(out)) {
      generator.writeStartObject();
      fields.accept(generator);
      generator.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Writes a string field, for use inside {@link #write}. */
  static void field(JsonGenerator generator, String name, String value) {
    try {
      generator.writeStringField(name, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a number field, for use inside {@link #write}. */
  static void field(JsonGenerator generator, String name, long value) {
    try {
      generator.writeNumberField(name, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a boolean field, for use inside {@link #write}. */
  static void field(JsonGenerator generator, String name, boolean value) {
    try {
      generator.writeBooleanField(name, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
