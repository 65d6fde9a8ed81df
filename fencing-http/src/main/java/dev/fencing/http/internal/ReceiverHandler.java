package dev.fencing.http.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.internal.Validate;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.jspecify.annotations.Nullable;

/**
 * Answers {@code POST /deliveries}, {@code POST /fences} and {@code GET /newest?key=}. Every
 * request is read whole (up to the body limit) and authenticated before anything reaches the
 * backing receiver, so a refused request writes nothing.
 */
final class ReceiverHandler extends Handler.Abstract {

  private static final Set<String> DELIVERY_FIELDS = Set.of("key", "epoch", "payload");
  private static final Set<String> FENCE_FIELDS = Set.of("key", "epoch");

  private final ServerConfig config;
  private final NonceWindow nonces;

  ReceiverHandler(ServerConfig config) {
    this.config = config;
    this.nonces = new NonceWindow(config.maxNonces());
  }

  /** Why a request was refused: the status, a short name, the field at fault, a sentence. */
  private record Refusal(int status, String error, String field, String message) {}

  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    final transient Refusal refusal;

    Refused(int status, String error, String field, String message) {
      super(message, null, false, false);
      this.refusal = new Refusal(status, error, field, message);
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    try {
      String path = request.getHttpURI().getPath();
      boolean delivery = path.equals("/deliveries");
      boolean fence = path.equals("/fences");
      if (!delivery && !fence && !path.equals("/newest")) {
        throw new Refused(404, "not_found", "path", "no such path: " + path);
      }
      String method = delivery || fence ? "POST" : "GET";
      if (!request.getMethod().equals(method)) {
        throw new Refused(
            405, "method_not_allowed", "method", path + " takes " + method + " requests only");
      }
      byte[] body = body(request);
      authenticate(request, body);
      if (delivery) {
        Responses.outcome(response, callback, deliver(body));
      } else if (fence) {
        Responses.outcome(response, callback, fence(body));
      } else {
        newest(request, response, callback);
      }
    } catch (Refused refused) {
      Refusal r = refused.refusal;
      Responses.error(response, callback, r.status(), r.error(), r.field(), r.message());
    } catch (RuntimeException e) {
      Responses.error(
          response,
          callback,
          503,
          "receiver_unavailable",
          "receiver",
          "the backing receiver failed; delivering again at the same epoch is safe: " + e);
    }
    return true;
  }

  private byte[] body(Request request) throws Refused {
    int limit = config.maxBodyBytes();
    if (request.getLength() > limit) {
      throw tooLarge(limit);
    }
    try (InputStream in = Content.Source.asInputStream(request)) {
      byte[] body = in.readNBytes(limit + 1);
      if (body.length > limit) {
        throw tooLarge(limit);
      }
      return body;
    } catch (IOException e) {
      throw new Refused(
          408,
          "request_timeout",
          "body",
          "the body did not arrive within the idle timeout of " + config.idleTimeout());
    }
  }

  private static Refused tooLarge(int limit) {
    return new Refused(
        413, "body_too_large", "body", "the body must be at most " + limit + " bytes");
  }

  private void authenticate(Request request, byte[] body) throws Refused {
    String signature = header(request, Signature.SIGNATURE);
    String timestampText = header(request, Signature.TIMESTAMP);
    String nonce = header(request, Signature.NONCE);
    if (nonce.length() > Signature.MAX_NONCE_LENGTH) {
      throw unauthorised(
          Signature.NONCE, "the nonce must be at most " + Signature.MAX_NONCE_LENGTH + " chars");
    }
    long timestamp;
    try {
      timestamp = Long.parseLong(timestampText);
    } catch (NumberFormatException e) {
      throw unauthorised(Signature.TIMESTAMP, "the timestamp must be milliseconds since 1970");
    }
    HttpURI uri = request.getHttpURI();
    String pathAndQuery = uri.getPath() + (uri.getQuery() == null ? "" : "?" + uri.getQuery());
    String expected =
        Signature.sign(
            config.sharedKey(), request.getMethod(), pathAndQuery, timestamp, nonce, body);
    if (!Signature.matches(expected, signature)) {
      throw unauthorised(Signature.SIGNATURE, "the signature does not match the request");
    }
    long now = config.clock().millis();
    long window = config.window().toMillis();
    if (Math.abs(now - timestamp) > window) {
      throw unauthorised(
          Signature.TIMESTAMP,
          "the timestamp is "
              + (now - timestamp)
              + " ms from the server's clock, outside the window of "
              + config.window());
    }
    switch (nonces.use(nonce, timestamp + window, now)) {
      case FRESH -> {}
      case REPLAYED ->
          throw unauthorised(Signature.NONCE, "this nonce was already used: a replayed request");
      case FULL ->
          throw new Refused(
              503, "too_busy", Signature.NONCE, "too many requests within the window; retry");
    }
  }

  private static String header(Request request, String name) throws Refused {
    String value = request.getHeaders().get(name);
    if (value == null || value.isEmpty()) {
      throw unauthorised(name, "the header " + name + " is missing");
    }
    return value;
  }

  private static Refused unauthorised(String field, String message) {
    return new Refused(401, "unauthorised", field, message);
  }

  private FencedOutcome deliver(byte[] body) throws Refused {
    Map<String, Wire.Value> fields =
        fields(body, DELIVERY_FIELDS, "a delivery has key, epoch and payload");
    String key = key(string(fields, "key"));
    Epoch epoch = epoch(fields.get("epoch"));
    String payload = string(fields, "payload");
    try {
      return config.backing().deliver(key, epoch, payload);
    } catch (IllegalArgumentException e) {
      throw badInput("payload", String.valueOf(e.getMessage()));
    }
  }

  private FencedOutcome fence(byte[] body) throws Refused {
    Map<String, Wire.Value> fields = fields(body, FENCE_FIELDS, "a fence has key and epoch");
    String key = key(string(fields, "key"));
    Epoch epoch = epoch(fields.get("epoch"));
    return config.backing().fence(key, epoch);
  }

  /** Reads {@code body}'s fields, refusing one not {@code known} with {@code which} they are. */
  private static Map<String, Wire.Value> fields(byte[] body, Set<String> known, String which)
      throws Refused {
    Map<String, Wire.Value> fields;
    try {
      fields = Wire.read(body);
    } catch (Wire.BadBody e) {
      throw badInput(e.field, e.getMessage());
    }
    for (String name : fields.keySet()) {
      if (!known.contains(name)) {
        throw badInput(name, "unknown field " + name + "; " + which);
      }
    }
    return fields;
  }

  private void newest(Request request, Response response, Callback callback) throws Refused {
    Fields query = Request.extractQueryParameters(request);
    String key = key(query.getValue("key"));
    Optional<Receipt> newest = config.backing().newest(key);
    if (newest.isEmpty()) {
      throw new Refused(404, "no_delivery", "key", "nothing was accepted for this key yet");
    }
    Receipt receipt = newest.get();
    Responses.send(
        response,
        callback,
        200,
        Wire.write(
            g -> {
              Wire.field(g, "key", receipt.key());
              Wire.field(g, "epoch", receipt.epoch().value());
              Wire.field(g, "payload", receipt.payload());
            }));
  }

  private static String key(@Nullable String key) throws Refused {
    try {
      return Validate.key(key);
    } catch (IllegalArgumentException e) {
      throw badInput("key", String.valueOf(e.getMessage()));
    }
  }

  private static String string(Map<String, Wire.Value> fields, String name) throws Refused {
    Wire.Value value = fields.get(name);
    if (value == null) {
      throw badInput(name, name + " is missing");
    }
    if (value.type() != com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
      throw badInput(name, name + " must be a JSON string, but was " + value.text());
    }
    return value.text();
  }

  private static Epoch epoch(Wire.@Nullable Value value) throws Refused {
    if (value == null) {
      throw badInput("epoch", "epoch is missing");
    }
    try {
      if (value.type() != com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT) {
        throw new NumberFormatException();
      }
      return Epoch.of(Long.parseLong(value.text()));
    } catch (NumberFormatException e) {
      throw badInput("epoch", "epoch must be a whole number from 1, but was " + value.text());
    } catch (IllegalArgumentException e) {
      throw badInput("epoch", String.valueOf(e.getMessage()));
    }
  }

  private static Refused badInput(String field, String message) {
    return new Refused(400, "bad_input", field, message);
  }
}
