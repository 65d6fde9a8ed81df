package dev.fencing.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Times GET requests for a web page, one after the other over one HTTP/1.1 client, as a script with
 * a bearer token asks for them: every answer must be 200, or the run fails.
 */
final class PageTimer {

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private final URI base;
  private final String token;

  /**
   * @param base the server's address, e.g. {@code http://127.0.0.1:8081/}
   * @param token sent as {@code Authorization: Bearer <token>}
   */
  PageTimer(URI base, String token) {
    this.base = base;
    this.token = token;
  }

  /** The latencies of a page's timed requests, and the size of its last answer. */
  record Timing(String path, LatencyRecorder latencies, int bytes) {}

  /**
   * Asks for {@code path} {@code warmups} times untimed, then {@code requests} times timed.
   *
   * @throws IllegalStateException if any answer is not 200
   */
  Timing time(String path, int warmups, int requests) throws IOException, InterruptedException {
    for (int i = 0; i < warmups; i++) {
      get(path);
    }
    LatencyRecorder latencies = new LatencyRecorder();
    String body = "";
    for (int i = 0; i < requests; i++) {
      long start = System.nanoTime();
      body = get(path);
      latencies.record(System.nanoTime() - start);
    }
    return new Timing(path, latencies, body.length());
  }

  /**
   * Returns the body of {@code path}'s answer.
   *
   * @throws IllegalStateException if the answer is not 200
   */
  String get(String path) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve(path))
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(60))
            .GET()
            .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      String body = response.body();
      throw new IllegalStateException(
          "GET "
              + path
              + " answered "
              + response.statusCode()
              + ", not 200: "
              + body.substring(0, Math.min(300, body.length())));
    }
    return response.body();
  }
}
