package dev.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.FencingDatabase;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Signed requests with bad bodies: each refused with the field named, nothing written. */
@FencingDatabase
class HttpBadInputTest extends ServedReceiver {

  @Override
  HttpReceiverServer.Builder configure(HttpReceiverServer.Builder builder) {
    return builder.idleTimeout(Duration.ofMillis(500));
  }

  private RawRequests.Answer post(String body) throws Exception {
    return raw.deliver(KEY, body.getBytes(StandardCharsets.UTF_8));
  }

  private void assertRefused(RawRequests.Answer answer, int status, String error, String field) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(status);
    assertThat(answer.body())
        .contains("\"error\":\"" + error + "\"")
        .contains("\"field\":\"" + field + "\"");
    assertThat(store.newest("k")).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "{\"key\":\"k\",\"epoch\":1,\"payload\":\"{}\"  | body",
        "not json at all | body",
        "[1,2] | body",
        "`` | body",
        "{\"key\":\"k\",\"epoch\":1,\"payload\":\"{}\"} trailing | body",
        "{\"epoch\":1,\"payload\":\"{}\"} | key",
        "{\"key\":\"\",\"epoch\":1,\"payload\":\"{}\"} | key",
        "{\"key\":7,\"epoch\":1,\"payload\":\"{}\"} | key",
        "{\"key\":\"k\",\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":0,\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":-3,\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":\"2\",\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":1.5,\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":99999999999999999999,\"payload\":\"{}\"} | epoch",
        "{\"key\":\"k\",\"epoch\":1} | payload",
        "{\"key\":\"k\",\"epoch\":1,\"payload\":{\"a\":1}} | payload",
        "{\"key\":\"k\",\"epoch\":1,\"payload\":\"{not json\"} | payload",
        "{\"key\":\"k\",\"epoch\":1,\"payload\":\"{}\",\"owner\":\"x\"} | owner",
        "{\"key\":\"k\",\"key\":\"j\",\"epoch\":1,\"payload\":\"{}\"} | key",
      })
  void aBadBodyIsBadInputNamingTheField(String body, String field) throws Exception {
    assertRefused(post(body), 400, "bad_input", field);
  }

  /** Bodies of a fence, each with the field its refusal names. */
  static Stream<Arguments> badFences() {
    return Stream.of(
        Arguments.of("{\"epoch\":1}", "key"),
        Arguments.of("{\"key\":\"\",\"epoch\":1}", "key"),
        Arguments.of("{\"key\":\"k\"}", "epoch"),
        Arguments.of("{\"key\":\"k\",\"epoch\":0}", "epoch"),
        Arguments.of("{\"key\":\"k\",\"epoch\":\"2\"}", "epoch"),
        Arguments.of("{\"key\":\"k\",\"epoch\":1,\"payload\":\"{}\"}", "payload"),
        Arguments.of("[1]", "body"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("badFences")
  void aBadFenceIsBadInputNamingTheField(String body, String field) throws Exception {
    assertRefused(fence(body), 400, "bad_input", field);
    assertThat(counted.fences()).isZero();
  }

  @Test
  void aFenceIsAPostOfKeyAndEpochAnsweredAsADelivery() throws Exception {
    RawRequests.Answer first = fence("{\"key\":\"k\",\"epoch\":3}");
    RawRequests.Answer again = fence("{\"key\":\"k\",\"epoch\":3}");
    RawRequests.Answer older = fence("{\"key\":\"k\",\"epoch\":2}");

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("{\"outcome\":\"accepted\",\"repeat\":false}");
    assertThat(again.body()).isEqualTo("{\"outcome\":\"accepted\",\"repeat\":true}");
    assertThat(older.status()).isEqualTo(409);
    assertThat(older.body()).isEqualTo("{\"outcome\":\"superseded\",\"current\":3}");
    assertThat(store.newest("k").orElseThrow().payload()).isEqualTo("null");
    assertThat(raw.send("GET", "/fences", new byte[0], Map.of()).status()).isEqualTo(405);
  }

  private RawRequests.Answer fence(String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return raw.send("POST", "/fences", bytes, RawRequests.signedNow(KEY, "POST", "/fences", bytes));
  }

  @Test
  void aHugeKeyIsBadInput() throws Exception {
    RawRequests.Answer answer = raw.deliver(KEY, RawRequests.delivery("k".repeat(501), 1, "{}"));

    assertRefused(answer, 400, "bad_input", "key");
    assertThat(counted.deliveries()).isZero();
  }

  @Test
  void aHugeKeyInALookupIsBadInput() throws Exception {
    String path = "/newest?key=" + "k".repeat(501);
    RawRequests.Answer answer =
        raw.send("GET", path, new byte[0], RawRequests.signedNow(KEY, "GET", path, new byte[0]));

    assertRefused(answer, 400, "bad_input", "key");
  }

  @Test
  void anOversizedBodyIsRefusedBeforeItIsRead() throws Exception {
    byte[] body = RawRequests.delivery("k", 1, "{\"pad\":\"" + "x".repeat(2 << 20) + "\"}");
    Map<String, String> headers = RawRequests.signedNow(KEY, "POST", "/deliveries", body);

    // Only the headers are sent: the declared length alone must get the refusal. (A client that
    // streams the whole body may see the connection closed under it before it reads the answer.)
    String answer = rawHeadersOnly(headers, body.length);

    assertThat(answer).startsWith("HTTP/1.1 413").contains("\"field\":\"body\"");
    assertThat(answer).contains("body_too_large");
    assertThat(counted.deliveries()).isZero();
  }

  @Test
  void anOversizedBodyWithoutALengthIsRefusedAfterTheLimit() throws Exception {
    byte[] body = RawRequests.delivery("k", 1, "{\"pad\":\"" + "x".repeat(2 << 20) + "\"}");
    Map<String, String> headers = RawRequests.signedNow(KEY, "POST", "/deliveries", body);

    String answer = rawHttp(headers, body, false);

    assertThat(answer).startsWith("HTTP/1.1 413").contains("\"field\":\"body\"");
    assertThat(counted.deliveries()).isZero();
  }

  @Test
  void aClientThatStallsMidBodyGetsATimeoutAndNothingIsWritten() throws Exception {
    byte[] body = RawRequests.delivery("k", 1, "{}");
    Map<String, String> headers = RawRequests.signedNow(KEY, "POST", "/deliveries", body);

    String answer = rawHttp(headers, body, true);

    assertThat(answer).startsWith("HTTP/1.1 408").contains("\"error\":\"request_timeout\"");
    assertThat(counted.deliveries()).isZero();
    assertThat(store.newest("k")).isEmpty();
  }

  @Test
  void aClientThatStallsMidHeadersIsCutOffAndNothingIsWritten() throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write("POST /deliveries HTTP/1.1\r\nHost: loc".getBytes(StandardCharsets.US_ASCII));

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(answer)
          .satisfiesAnyOf(
              a -> assertThat(a).isEmpty(), a -> assertThat(a).startsWith("HTTP/1.1 408"));
    }
    assertThat(counted.deliveries()).isZero();
  }

  @Test
  void anUnknownPathOrMethodIsNamed() throws Exception {
    assertThat(raw.send("GET", "/deliveries", new byte[0], Map.of()).status()).isEqualTo(405);
    assertThat(raw.send("GET", "/elsewhere", new byte[0], Map.of()).status()).isEqualTo(404);
  }

  /**
   * Sends a request over a plain socket: chunked when {@code stall} is false, else announcing the
   * whole body but sending half of it and waiting. Returns what the server answered.
   */
  private String rawHttp(Map<String, String> headers, byte[] body, boolean stall) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
      socket.setSoTimeout(10_000);
      StringBuilder head = new StringBuilder("POST /deliveries HTTP/1.1\r\nHost: localhost\r\n");
      headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
      head.append(
          stall
              ? "Content-Length: " + body.length + "\r\n\r\n"
              : "Transfer-Encoding: chunked\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      if (stall) {
        out.write(body, 0, body.length / 2);
        out.flush();
      } else {
        try {
          for (int at = 0; at < body.length; at += 65_536) {
            int length = Math.min(65_536, body.length - at);
            out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, length);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          }
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } catch (java.io.IOException closedEarly) {
          // the server may answer and close before the whole body is sent
        }
      }
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private String rawHeadersOnly(Map<String, String> headers, int contentLength) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
      socket.setSoTimeout(10_000);
      StringBuilder head = new StringBuilder("POST /deliveries HTTP/1.1\r\nHost: localhost\r\n");
      headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
      head.append("Content-Length: ").append(contentLength).append("\r\n\r\n");
      socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
