package dev.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.testkit.db.FencingDatabase;
import org.junit.jupiter.api.Test;

@FencingDatabase
class HttpRoundTripTest extends ServedReceiver {

  @Test
  void aFirstDeliveryIsAcceptedAndLandsInTheStore() {
    assertThat(client.deliver("acc-1", Epoch.of(1), "{\"debit\": 100}"))
        .isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.of(1), false));
    assertThat(store.newest("acc-1"))
        .contains(new Receipt("acc-1", Epoch.of(1), "{\"debit\": 100}"));
  }

  @Test
  void theSameEpochAgainIsARepeat() {
    client.deliver("acc-1", Epoch.of(3), "{\"n\": 1}");

    assertThat(client.deliver("acc-1", Epoch.of(3), "{\"n\": 1}"))
        .isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.of(3), true));
  }

  @Test
  void aZombieAfterItsSuccessorIsSupersededWithTheEpochThatWon() throws Exception {
    client.deliver("acc-1", Epoch.of(2), "{\"by\": \"new owner\"}");

    assertThat(client.deliver("acc-1", Epoch.of(1), "{\"by\": \"zombie\"}"))
        .isEqualTo(new FencedOutcome.Superseded("acc-1", Epoch.of(1), Epoch.of(2), null));
    assertThat(store.newest("acc-1"))
        .contains(new Receipt("acc-1", Epoch.of(2), "{\"by\": \"new owner\"}"));
    byte[] zombie = RawRequests.delivery("acc-1", 1, "{}");
    RawRequests.Answer answer = raw.deliver(KEY, zombie);
    assertThat(answer.status()).isEqualTo(409);
    assertThat(answer.body()).isEqualTo("{\"outcome\":\"superseded\",\"current\":2}");
  }

  @Test
  void theWireNamesTheOutcomeInWords() throws Exception {
    byte[] body = RawRequests.delivery("acc-1", 1, "{}");

    assertThat(raw.deliver(KEY, body))
        .isEqualTo(new RawRequests.Answer(200, "{\"outcome\":\"accepted\",\"repeat\":false}"));
    assertThat(raw.deliver(KEY, body))
        .isEqualTo(new RawRequests.Answer(200, "{\"outcome\":\"accepted\",\"repeat\":true}"));
  }

  @Test
  void newestComesBackThroughTheClient() {
    String key = "k/with spaces & ?=%+ and ünïcode";
    assertThat(client.newest(key)).isEmpty();

    client.deliver(key, Epoch.of(4), "{\"a\": [1, 2]}");

    assertThat(client.newest(key)).contains(new Receipt(key, Epoch.of(4), "{\"a\": [1, 2]}"));
  }

  @Test
  void aPayloadTheStoreRefusesIsBadInputNamingThePayload() {
    assertThatThrownBy(() -> client.deliver("acc-1", Epoch.of(1), "{not json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("payload");
    assertThat(store.newest("acc-1")).isEmpty();
  }

  @Test
  void aClientWithAnotherKeyIsRefusedWithAClearException() {
    byte[] wrong = "another key, also at least 32 bytes long".getBytes();

    assertThatThrownBy(
            () ->
                HttpReceiverClient.builder(server.uri(), wrong)
                    .build()
                    .deliver("acc-1", Epoch.of(1), "{}"))
        .isInstanceOfSatisfying(
            HttpReceiverException.class, e -> assertThat(e.status()).isEqualTo(401))
        .hasMessageContaining("signature");
    assertThat(store.newest("acc-1")).isEmpty();
    assertThat(counted.deliveries()).isZero();
  }
}
