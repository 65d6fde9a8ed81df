package dev.fencing.http.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.http.HttpReceiverException;
import dev.fencing.internal.Deliveries;
import dev.fencing.internal.Validate;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link FencedReceiver} that signs each request and sends it to an HTTP receiver, retrying
 * transient failures (no connection, a timeout, a 5xx) with the same body: the same key, epoch and
 * payload (or key and epoch for a fence), so a retry whose first attempt had landed comes back as a
 * repeat. Each attempt has a new nonce and timestamp.
 */
public final class SigningReceiverClient implements FencedReceiver {

  /** The longest wait between two attempts. */
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

  private final ClientConfig config;
  private final HttpClient http;
  private final Retry retry;
  private final String basePath;

  public SigningReceiverClient(ClientConfig config) {
    this.config = config;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(config.connectTimeout())
            .build();
    this.retry =
        Retry.of(
            "fencing-http",
            RetryConfig.custom()
                .maxAttempts(config.maxAttempts())
                .intervalFunction(
                    IntervalFunction.ofExponentialRandomBackoff(
                        config.firstBackoff(), 2.0, 0.5, MAX_BACKOFF))
                .retryExceptions(Transient.class)
                .build());
    String path = config.base().getRawPath();
    this.basePath = path == null || path.equals("/") ? "" : path.replaceAll("/$", "");
  }

  /** An attempt that may succeed if made again. */
  private static final class Transient extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    Transient(int status, String message, Throwable cause) {
      super(message, cause);
      this.status = status;
    }
  }

  private record Answer(int status, Map<String, Wire.Value> fields) {
    String text(String name) {
      Wire.Value value = fields.get(name);
      return value == null ? "" : value.text();
    }
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    Deliveries.check(key, epoch, payload);
    byte[] body =
        Wire.write(
            g -> {
              Wire.field(g, "key", key);
              Wire.field(g, "epoch", epoch.value());
              Wire.field(g, "payload", payload);
            });
    return outcome(key, epoch, call("POST", basePath + "/deliveries", body));
  }

  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    Deliveries.fence(key, epoch);
    byte[] body =
        Wire.write(
            g -> {
              Wire.field(g, "key", key);
              Wire.field(g, "epoch", epoch.value());
            });
    return outcome(key, epoch, call("POST", basePath + "/fences", body));
  }

  /** What a server's answer to a delivery or a fence of {@code key} at {@code epoch} says. */
  private static FencedOutcome outcome(String key, Epoch epoch, Answer answer) {
    return switch (answer.status()) {
      case 200 ->
          new FencedOutcome.Accepted(key, epoch, Boolean.parseBoolean(answer.text("repeat")));
      case 409 ->
          new FencedOutcome.Superseded(
              key, epoch, Epoch.of(Long.parseLong(answer.text("current"))), null);
      default -> throw refused(answer);
    };
  }

  @Override
  public Optional<Receipt> newest(String key) {
    Validate.key(key);
    String query = "key=" + URLEncoder.encode(key, StandardCharsets.UTF_8);
    Answer answer = call("GET", basePath + "/newest?" + query, new byte[0]);
    if (answer.status() == 404 && answer.text("error").equals("no_delivery")) {
      return Optional.empty();
    }
    if (answer.status() != 200) {
      throw refused(answer);
    }
    return Optional.of(
        new Receipt(
            answer.text("key"),
            Epoch.of(Long.parseLong(answer.text("epoch"))),
            answer.text("payload")));
  }

  private static RuntimeException refused(Answer answer) {
    String message =
        answer.status()
            + " "
            + answer.text("error")
            + " ("
            + answer.text("field")
            + "): "
            + answer.text("message");
    if (answer.status() == 400) {
      return new IllegalArgumentException(answer.text("message"));
    }
    return new HttpReceiverException(answer.status(), message);
  }

  private Answer call(String method, String pathAndQuery, byte[] body) {
    try {
      return retry.executeSupplier(() -> attempt(method, pathAndQuery, body));
    } catch (Transient e) {
      throw new HttpReceiverException(
          e.status,
          "the HTTP receiver at "
              + config.base()
              + " did not answer after "
              + config.maxAttempts()
              + " attempts; whether the last one was written is unknown, and delivering again at"
              + " the same epoch is safe: "
              + e.getMessage(),
          e);
    }
  }

  private Answer attempt(String method, String pathAndQuery, byte[] body) {
    long timestamp = config.clock().millis();
    String nonce = UUID.randomUUID().toString();
    String signature =
        Signature.sign(config.sharedKey(), method, pathAndQuery, timestamp, nonce, body);
    HttpRequest request =
        HttpRequest.newBuilder(config.base().resolve(pathAndQuery))
            .timeout(config.requestTimeout())
            .header("Content-Type", "application/json")
            .header(Signature.TIMESTAMP, Long.toString(timestamp))
            .header(Signature.NONCE, nonce)
            .header(Signature.SIGNATURE, signature)
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new Transient(0, e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HttpReceiverException(0, "interrupted while calling " + config.base(), e);
    }
    int status = response.statusCode();
    Map<String, Wire.Value> fields;
    try {
      fields = Wire.read(response.body());
    } catch (Wire.BadBody e) {
      if (status >= 500 || status == 408) {
        throw new Transient(status, "status " + status, e);
      }
      throw new HttpReceiverException(status, "status " + status + " with a body that is not ours");
    }
    if (status >= 500 || status == 408) {
      throw new Transient(status, "status " + status + ": " + fields, null);
    }
    return new Answer(status, fields);
  }
}
