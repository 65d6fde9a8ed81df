package dev.fencing.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Requests built by hand, signed by this test's own reading of the protocol (not the module's
 * code), so that a test can leave out, forge or replay any part.
 */
final class RawRequests {

  private final HttpClient http = HttpClient.newHttpClient();
  private final URI base;

  RawRequests(URI base) {
    this.base = base;
  }

  record Answer(int status, String body) {}

  /** The headers of a correctly signed request. */
  static Map<String, String> signed(
      byte[] key, String method, String pathAndQuery, long timestamp, String nonce, byte[] body) {
    try {
      HexFormat hex = HexFormat.of();
      String text =
          String.join(
              "\n",
              "FENCING-HMAC-SHA256",
              method,
              pathAndQuery,
              Long.toString(timestamp),
              nonce,
              hex.formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("Fencing-Timestamp", Long.toString(timestamp));
      headers.put("Fencing-Nonce", nonce);
      headers.put(
          "Fencing-Signature", hex.formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8))));
      return headers;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static Map<String, String> signedNow(
      byte[] key, String method, String pathAndQuery, byte[] body) {
    return signed(
        key, method, pathAndQuery, System.currentTimeMillis(), UUID.randomUUID().toString(), body);
  }

  static byte[] delivery(String key, long epoch, String payload) {
    return ("{\"key\":"
            + quote(key)
            + ",\"epoch\":"
            + epoch
            + ",\"payload\":"
            + quote(payload)
            + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  Answer send(String method, String pathAndQuery, byte[] body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(pathAndQuery))
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), response.body());
  }

  Answer deliver(byte[] key, byte[] body) throws IOException, InterruptedException {
    return send("POST", "/deliveries", body, signedNow(key, "POST", "/deliveries", body));
  }
}
