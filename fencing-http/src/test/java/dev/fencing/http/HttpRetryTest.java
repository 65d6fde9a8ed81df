package dev.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.process.Ports;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Transient failures are retried at the same epoch and never take effect twice. */
@FencingDatabase
class HttpRetryTest extends ServedReceiver {

  @Test
  void anAnswerLostAfterTheWriteLandedIsRetriedAndComesBackAsARepeat() throws Exception {
    try (LosingProxy proxy = new LosingProxy(server.port())) {
      FencedReceiver throughProxy =
          HttpReceiverClient.builder(URI.create("http://127.0.0.1:" + proxy.port()), KEY)
              .firstBackoff(Duration.ofMillis(10))
              .build();
      proxy.loseNextAnswer();

      FencedOutcome outcome = throughProxy.deliver("acc-1", Epoch.of(3), "{\"debit\": 100}");

      assertThat(proxy.lostAnswers()).isEqualTo(1);
      assertThat(outcome).isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.of(3), true));
      assertThat(counted.deliveries()).isEqualTo(2);
      assertThat(store.newest("acc-1"))
          .contains(new Receipt("acc-1", Epoch.of(3), "{\"debit\": 100}"));
    }
  }

  @Test
  void aLostAnswerToAZombieIsStillSupersededOnTheRetry() throws Exception {
    client.deliver("acc-1", Epoch.of(2), "{\"by\": \"new owner\"}");
    try (LosingProxy proxy = new LosingProxy(server.port())) {
      FencedReceiver throughProxy =
          HttpReceiverClient.builder(URI.create("http://127.0.0.1:" + proxy.port()), KEY)
              .firstBackoff(Duration.ofMillis(10))
              .build();
      proxy.loseNextAnswer();

      assertThat(throughProxy.deliver("acc-1", Epoch.of(1), "{\"by\": \"zombie\"}"))
          .isEqualTo(new FencedOutcome.Superseded("acc-1", Epoch.of(1), Epoch.of(2), null));
      assertThat(store.newest("acc-1").map(Receipt::epoch)).contains(Epoch.of(2));
    }
  }

  @Test
  void aFailingStoreIsA503AndTheRetryLands() {
    AtomicInteger failuresLeft = new AtomicInteger(2);
    FencedReceiver flaky =
        new FencedReceiver() {
          @Override
          public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
            throw new UnsupportedOperationException("this test double does not fence");
          }

          @Override
          public FencedOutcome deliver(String key, Epoch epoch, String payload) {
            if (failuresLeft.getAndDecrement() > 0) {
              throw new IllegalStateException("database unreachable");
            }
            return store.deliver(key, epoch, payload);
          }

          @Override
          public Optional<Receipt> newest(String key) {
            return store.newest(key);
          }
        };
    try (HttpReceiverServer flakyServer =
        HttpReceiverServer.builder(flaky).sharedKey(KEY).start()) {
      FencedReceiver client =
          HttpReceiverClient.builder(flakyServer.uri(), KEY)
              .firstBackoff(Duration.ofMillis(10))
              .build();

      assertThat(client.deliver("acc-1", Epoch.of(1), "{}"))
          .isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.of(1), false));
      assertThat(failuresLeft.get()).isNegative();
    }
  }

  @Test
  void noServerAtAllEndsInAClearExceptionAfterTheAttempts() throws Exception {
    int unused = Ports.freePort();
    FencedReceiver nowhere =
        HttpReceiverClient.builder(URI.create("http://127.0.0.1:" + unused), KEY)
            .maxAttempts(3)
            .firstBackoff(Duration.ofMillis(1))
            .build();

    assertThatThrownBy(() -> nowhere.deliver("acc-1", Epoch.of(1), "{}"))
        .isInstanceOfSatisfying(HttpReceiverException.class, e -> assertThat(e.status()).isZero())
        .hasMessageContaining("after 3 attempts")
        .hasMessageContaining("same epoch is safe");
  }

  @Test
  void aServerStartedWhileTheClientRetriesTakesTheDelivery() throws Exception {
    int port = server.port();
    server.close();
    FencedReceiver patient =
        HttpReceiverClient.builder(URI.create("http://127.0.0.1:" + port), KEY)
            .maxAttempts(50)
            .firstBackoff(Duration.ofMillis(20))
            .build();
    Thread restart =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    Thread.sleep(200);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  server = HttpReceiverServer.builder(counted).port(port).sharedKey(KEY).start();
                });

    FencedOutcome outcome = patient.deliver("acc-1", Epoch.of(1), "{}");
    restart.join();

    assertThat(outcome).isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.of(1), false));
    assertThat(counted.deliveries()).isEqualTo(1);
  }
}
