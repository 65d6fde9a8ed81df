package dev.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.testkit.db.FencingDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every request that is not signed now with the shared key is refused and reaches nothing. */
@FencingDatabase
class HttpAuthenticationTest extends ServedReceiver {

  private static final byte[] BODY = RawRequests.delivery("acc-1", 1, "{\"debit\": 100}");

  private void assertRefusedAndNothingWritten(RawRequests.Answer answer, String field) {
    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.body())
        .contains("\"error\":\"unauthorised\"")
        .contains("\"field\":\"" + field + "\"");
    assertThat(counted.deliveries()).isZero();
    assertThat(store.newest("acc-1")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"Fencing-Signature", "Fencing-Timestamp", "Fencing-Nonce"})
  void aRequestWithoutOneOfTheHeadersIsRefused(String missing) throws Exception {
    Map<String, String> headers =
        new HashMap<>(RawRequests.signedNow(KEY, "POST", "/deliveries", BODY));
    headers.remove(missing);

    assertRefusedAndNothingWritten(raw.send("POST", "/deliveries", BODY, headers), missing);
  }

  @Test
  void anUnsignedRequestIsRefused() throws Exception {
    assertRefusedAndNothingWritten(
        raw.send("POST", "/deliveries", BODY, Map.of()), "Fencing-Signature");
  }

  @Test
  void aRequestSignedWithAnotherKeyIsRefused() throws Exception {
    byte[] other = "not the shared key, but just as long as it".getBytes(StandardCharsets.UTF_8);

    assertRefusedAndNothingWritten(raw.deliver(other, BODY), "Fencing-Signature");
  }

  @Test
  void aSignedRequestWithAnotherBodyIsRefused() throws Exception {
    Map<String, String> headers = RawRequests.signedNow(KEY, "POST", "/deliveries", BODY);
    byte[] forged = RawRequests.delivery("acc-1", 1, "{\"debit\": 100000}");

    assertRefusedAndNothingWritten(
        raw.send("POST", "/deliveries", forged, headers), "Fencing-Signature");
  }

  @Test
  void aSignedRequestWithAnotherTimestampIsRefused() throws Exception {
    Map<String, String> headers =
        new HashMap<>(RawRequests.signedNow(KEY, "POST", "/deliveries", BODY));
    headers.put("Fencing-Timestamp", Long.toString(System.currentTimeMillis() + 1));

    assertRefusedAndNothingWritten(
        raw.send("POST", "/deliveries", BODY, headers), "Fencing-Signature");
  }

  @Test
  void aSignatureForAnotherKeysLookupDoesNotReadThisKey() throws Exception {
    store.deliver("secret", Epoch.of(1), "{}");
    Map<String, String> headers =
        RawRequests.signedNow(KEY, "GET", "/newest?key=public", new byte[0]);

    RawRequests.Answer answer = raw.send("GET", "/newest?key=secret", new byte[0], headers);

    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.body()).doesNotContain("epoch");
  }

  @ParameterizedTest
  @ValueSource(longs = {-31, 31})
  void aRequestOutsideTheWindowIsRefused(long secondsOff) throws Exception {
    long then = System.currentTimeMillis() + secondsOff * 1000;
    Map<String, String> headers =
        RawRequests.signed(KEY, "POST", "/deliveries", then, UUID.randomUUID().toString(), BODY);

    assertRefusedAndNothingWritten(
        raw.send("POST", "/deliveries", BODY, headers), "Fencing-Timestamp");
  }

  @Test
  void aClientWhoseClockIsOffIsRefusedWithAClearException() {
    Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-45));

    assertThatThrownBy(
            () -> clientBuilder().clock(behind).build().deliver("acc-1", Epoch.of(1), "{}"))
        .isInstanceOfSatisfying(
            HttpReceiverException.class, e -> assertThat(e.status()).isEqualTo(401))
        .hasMessageContaining("window");
    assertThat(counted.deliveries()).isZero();
  }

  @Test
  void aReplayedRequestIsRefusedEvenWhenItWouldBeARepeat() throws Exception {
    Map<String, String> headers = RawRequests.signedNow(KEY, "POST", "/deliveries", BODY);
    assertThat(raw.send("POST", "/deliveries", BODY, headers).status()).isEqualTo(200);

    RawRequests.Answer replay = raw.send("POST", "/deliveries", BODY, headers);

    assertThat(replay.status()).isEqualTo(401);
    assertThat(replay.body()).contains("\"field\":\"Fencing-Nonce\"").contains("replayed");
    assertThat(counted.deliveries()).isEqualTo(1);
  }

  @Test
  void theNonceMemoryIsBoundedAndAFullOneRefusesWithARetryableStatus() throws Exception {
    try (HttpReceiverServer small =
        HttpReceiverServer.builder(counted).sharedKey(KEY).maxNonces(2).start()) {
      RawRequests toSmall = new RawRequests(small.uri());
      assertThat(toSmall.deliver(KEY, BODY).status()).isEqualTo(200);
      assertThat(toSmall.deliver(KEY, BODY).status()).isEqualTo(200);

      RawRequests.Answer third = toSmall.deliver(KEY, BODY);

      assertThat(third.status()).isEqualTo(503);
      assertThat(third.body()).contains("\"error\":\"too_busy\"");
      assertThat(counted.deliveries()).isEqualTo(2);
    }
  }

  @Test
  void aReplayedOldRequestDoesNotUndoANewerOne() throws Exception {
    Map<String, String> first = RawRequests.signedNow(KEY, "POST", "/deliveries", BODY);
    raw.send("POST", "/deliveries", BODY, first);
    client.deliver("acc-1", Epoch.of(2), "{\"debit\": 5}");

    assertThat(raw.send("POST", "/deliveries", BODY, first).status()).isEqualTo(401);
    assertThat(store.newest("acc-1")).contains(new Receipt("acc-1", Epoch.of(2), "{\"debit\": 5}"));
  }
}
