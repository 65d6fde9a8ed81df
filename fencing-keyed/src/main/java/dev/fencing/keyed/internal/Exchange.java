package dev.fencing.keyed.internal;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;

/** One request and what came back of it: an answer, or none. */
final class Exchange {

  /** What one request came to. */
  sealed interface Answer {}

  /** The service answered with {@code status}. */
  record Answered(int status, String body) implements Answer {}

  /** No answer came: the request may or may not have been processed. */
  record NoAnswer(String reason) implements Answer {}

  /** The thread was interrupted while waiting; its flag is set again. */
  record Interrupted() implements Answer {}

  private final HttpClient client;

  Exchange(HttpClient client) {
    this.client = client;
  }

  Answer send(HttpRequest request) {
    try {
      HttpResponse<String> response =
          client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answered(response.statusCode(), response.body());
    } catch (HttpTimeoutException e) {
      return new NoAnswer("no answer within the timeout (" + e.getMessage() + ")");
    } catch (IOException e) {
      return new NoAnswer("the connection failed (" + e + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Interrupted();
    }
  }

  static HttpRequest post(Config config, URI target, String key, long epoch, String body) {
    return HttpRequest.newBuilder(target)
        .timeout(config.callTimeout())
        .header(config.keyHeader(), key)
        .header(config.epochHeader(), Long.toString(epoch))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
        .build();
  }

  static HttpRequest lookup(Config config, String key) {
    return HttpRequest.newBuilder(config.lookup(key))
        .timeout(config.callTimeout())
        .header(config.keyHeader(), key)
        .GET()
        .build();
  }
}
