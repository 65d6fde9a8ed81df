package dev.fencing.keyed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.keyed.KeyedService.Kind;
import dev.fencing.keyed.KeyedService.Loss;
import dev.fencing.keyed.internal.Config;
import dev.fencing.keyed.internal.HttpKeyedCalls;
import dev.fencing.keyed.internal.Keys;
import dev.fencing.testkit.process.Ports;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Keyed calls against a real HTTP service on loopback that knows nothing of epochs and loses
 * answers on purpose. Each guard has a broken variant of the client that the same scenario catches:
 * a client that resends without looking up, and one whose key holds the epoch.
 */
class KeyedCallsTest {

  private static final CallId CHARGE = new CallId("42", "charge");
  private static final String BODY = "{\"amount\":1000}";
  // generous: two cores are shared, and a loaded machine must not turn an answer into a timeout
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  @Test
  void aDroppedAnswerIsFoundByLookingTheKeyUpAndNotSentAgain() throws IOException {
    try (KeyedService service = new KeyedService(Kind.LOOKUP_ONLY, Loss.DROP, Set.of(1), TIMEOUT);
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Done.class);
      KeyedOutcome.Done done = (KeyedOutcome.Done) outcome;
      assertThat(done.lookedUp()).isTrue();
      assertThat(done.body()).contains("\"charge\":1");
      assertThat(service.effects()).isEqualTo(1);
      assertThat(service.calls()).isEqualTo(1);
      assertThat(service.lookups()).isEqualTo(1);
    }
  }

  @Test
  void aLateAnswerIsFoundByLookingTheKeyUpAndNotSentAgain() throws IOException {
    try (KeyedService service =
            new KeyedService(Kind.LOOKUP_ONLY, Loss.LATE, Set.of(1), TIMEOUT.multipliedBy(3));
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome)
          .isEqualTo(
              new KeyedOutcome.Done(
                  calls.keyOf(CHARGE),
                  Epoch.FIRST,
                  200,
                  "{\"charge\":1,\"request\":" + BODY + "}",
                  true));
      assertThat(service.effects()).isEqualTo(1);
      assertThat(service.calls()).isEqualTo(1);
    }
  }

  /** The lookup guard's broken variant: resending blindly doubles the effect the test counts. */
  @Test
  void withoutTheLookupTheSameLostAnswerIsChargedTwice() throws IOException {
    try (KeyedService service = new KeyedService(Kind.LOOKUP_ONLY, Loss.DROP, Set.of(1), TIMEOUT);
        KeyedCalls blind = variant(service.uri(), Keys.STABLE, false)) {
      KeyedOutcome outcome = blind.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Done.class);
      assertThat(service.effects()).isEqualTo(2);
    }
  }

  @Test
  void aZombieAndTheNewOwnerMakingTheSameCallAreOneEffect() throws IOException {
    try (KeyedService service = KeyedService.answering(Kind.DEDUPES_WITH_LOOKUP);
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome zombie = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);
      KeyedOutcome owner = calls.post(CHARGE, Epoch.of(2), "/charges", BODY);

      assertThat(service.effects()).isEqualTo(1);
      assertThat(service.keysSeen()).containsExactly(calls.keyOf(CHARGE), calls.keyOf(CHARGE));
      assertThat(service.epochsSeen()).containsExactly("1", "2");
      assertThat(zombie).isInstanceOf(KeyedOutcome.Done.class);
      assertThat(owner).isInstanceOf(KeyedOutcome.Done.class);
      assertThat(((KeyedOutcome.Done) owner).body()).isEqualTo(((KeyedOutcome.Done) zombie).body());
    }
  }

  /** The key guard's broken variant: a key that holds the epoch makes two effects of one call. */
  @Test
  void aKeyHoldingTheEpochMakesTheZombieAndTheNewOwnerTwoEffects() throws IOException {
    Keys withEpoch = (namespace, id, epoch) -> Keys.sha256(namespace, id) + "-" + epoch.value();
    try (KeyedService service = KeyedService.answering(Kind.DEDUPES_WITH_LOOKUP);
        KeyedCalls broken = variant(service.uri(), withEpoch, true)) {
      broken.post(CHARGE, Epoch.FIRST, "/charges", BODY);
      broken.post(CHARGE, Epoch.of(2), "/charges", BODY);

      assertThat(service.effects()).isEqualTo(2);
    }
  }

  @Test
  void aServiceThatDedupesWithoutALookupGetsTheSameKeyAgainAndChargesOnce() throws IOException {
    try (KeyedService service =
            new KeyedService(Kind.DEDUPES_WITHOUT_LOOKUP, Loss.DROP, Set.of(1), TIMEOUT);
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Done.class);
      assertThat(((KeyedOutcome.Done) outcome).lookedUp()).isFalse();
      assertThat(service.calls()).isEqualTo(2);
      assertThat(service.lookups()).isEqualTo(1);
      assertThat(service.keysSeen()).containsExactly(calls.keyOf(CHARGE), calls.keyOf(CHARGE));
      assertThat(service.effects()).isEqualTo(1);
    }
  }

  @Test
  void everyAnswerLostEndsUnknownNeverDone() throws IOException {
    try (KeyedService service =
            new KeyedService(Kind.DEDUPES_WITHOUT_LOOKUP, Loss.DROP, Set.of(1, 2, 3), TIMEOUT);
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Unknown.class);
      KeyedOutcome.Unknown unknown = (KeyedOutcome.Unknown) outcome;
      assertThat(unknown.calls()).isEqualTo(3);
      assertThat(unknown.message()).startsWith("outcome unknown after 3 calls");
      assertThat(service.effects()).isEqualTo(1);
    }
  }

  @Test
  void aServiceThatIsDownEndsUnknownAfterTheAttempts() throws IOException {
    URI down = URI.create("http://127.0.0.1:" + Ports.freePort());
    try (KeyedCalls calls = client(down, 3)) {
      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Unknown.class);
      KeyedOutcome.Unknown unknown = (KeyedOutcome.Unknown) outcome;
      assertThat(unknown.calls()).isEqualTo(1);
      assertThat(unknown.lookups()).isEqualTo(3);
      assertThat(unknown.message())
          .startsWith("outcome unknown after 1 call to " + down + "/charges and 3 lookups")
          .contains(calls.keyOf(CHARGE), "epoch 1", "the connection failed")
          .endsWith(
              "The effect may or may not have happened: look the key up before acting on it.");
    }
  }

  @Test
  void aRefusalIsReturnedAndNotRetried() throws IOException {
    try (KeyedService service = KeyedService.answering(Kind.DEDUPES_WITH_LOOKUP);
        KeyedCalls calls = client(service.uri(), 3)) {
      service.refuseWith(402);

      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY);

      assertThat(outcome)
          .isEqualTo(
              new KeyedOutcome.Refused(
                  calls.keyOf(CHARGE), Epoch.FIRST, 402, "{\"error\":\"card declined\"}"));
      assertThat(service.calls()).isEqualTo(1);
      assertThat(service.lookups()).isZero();
    }
  }

  @Test
  void aLostLeaseSendsNothing() throws IOException {
    try (KeyedService service = KeyedService.answering(Kind.DEDUPES_WITH_LOOKUP);
        KeyedCalls calls = client(service.uri(), 3)) {
      KeyedOutcome outcome =
          calls.post(CHARGE, Epoch.FIRST, "/charges", BODY, LeaseCheck.of(() -> false));

      assertThat(outcome)
          .isEqualTo(
              new KeyedOutcome.FencedOff(
                  calls.keyOf(CHARGE),
                  Epoch.FIRST,
                  "the lease check said the lease is no longer current"));
      assertThat(service.calls()).isZero();
    }
  }

  @Test
  void aLeaseLostAfterALostAnswerIsNotSentAgain() throws IOException {
    try (KeyedService service =
            new KeyedService(Kind.DEDUPES_WITHOUT_LOOKUP, Loss.DROP, Set.of(1), TIMEOUT);
        KeyedCalls calls = client(service.uri(), 3)) {
      AtomicBoolean current = new AtomicBoolean(true);
      LeaseCheck onceOnly = LeaseCheck.of(() -> current.getAndSet(false));

      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY, onceOnly);

      assertThat(outcome).isInstanceOf(KeyedOutcome.FencedOff.class);
      assertThat(service.calls()).isEqualTo(1);
      assertThat(service.lookups()).isEqualTo(1);
    }
  }

  @Test
  void aCheckThatThrowsCountsAsLost() throws IOException {
    try (KeyedService service = KeyedService.answering(Kind.DEDUPES_WITH_LOOKUP);
        KeyedCalls calls = client(service.uri(), 3)) {
      LeaseCheck broken =
          LeaseCheck.of(
              () -> {
                throw new IllegalStateException("database down");
              });

      KeyedOutcome outcome = calls.post(CHARGE, Epoch.FIRST, "/charges", BODY, broken);

      assertThat(outcome).isInstanceOf(KeyedOutcome.FencedOff.class);
      assertThat(((KeyedOutcome.FencedOff) outcome).reason()).contains("database down");
      assertThat(service.calls()).isZero();
    }
  }

  /**
   * The seed's scene at a service that ignores epochs: the zombie's charge lands but it never
   * learns so (its answer and its lookup are lost) and it stalls; the new owner makes the same
   * call.
   */
  @Test
  void aNewOwnerThatLooksUpFirstFindsTheZombiesChargeAtAServiceThatDoesNotDedupe()
      throws IOException {
    try (KeyedService service = new KeyedService(Kind.LOOKUP_ONLY, Loss.DROP, Set.of(1), TIMEOUT);
        KeyedCalls zombie = client(service.uri(), 1);
        KeyedCalls owner = builder(service.uri(), 3).lookupFirst(true).build()) {
      service.loseLookups(1, TIMEOUT.multipliedBy(2));
      assertThat(zombie.post(CHARGE, Epoch.FIRST, "/charges", BODY))
          .isInstanceOf(KeyedOutcome.Unknown.class);

      KeyedOutcome outcome = owner.post(CHARGE, Epoch.of(2), "/charges", BODY);

      assertThat(outcome).isInstanceOf(KeyedOutcome.Done.class);
      assertThat(((KeyedOutcome.Done) outcome).lookedUp()).isTrue();
      assertThat(service.effects()).isEqualTo(1);
      assertThat(service.calls()).isEqualTo(1);
    }
  }

  /** Without the lookup first, only the service's deduplication can keep it to one charge. */
  @Test
  void aNewOwnerThatDoesNotLookUpFirstChargesAgainUnlessTheServiceDedupes() throws IOException {
    for (Kind kind : new Kind[] {Kind.LOOKUP_ONLY, Kind.DEDUPES_WITHOUT_LOOKUP}) {
      try (KeyedService service = new KeyedService(kind, Loss.DROP, Set.of(1), TIMEOUT);
          KeyedCalls zombie = client(service.uri(), 1);
          KeyedCalls owner = client(service.uri(), 3)) {
        service.loseLookups(1, TIMEOUT.multipliedBy(2));
        zombie.post(CHARGE, Epoch.FIRST, "/charges", BODY);

        assertThat(owner.post(CHARGE, Epoch.of(2), "/charges", BODY))
            .isInstanceOf(KeyedOutcome.Done.class);
        assertThat(service.effects()).as(kind.name()).isEqualTo(kind.dedupes ? 1 : 2);
      }
    }
  }

  private static KeyedCalls client(URI uri, int attempts) {
    return builder(uri, attempts).build();
  }

  private static KeyedHttp.Builder builder(URI uri, int attempts) {
    return KeyedHttp.builder(uri)
        .callTimeout(TIMEOUT)
        .connectTimeout(TIMEOUT)
        .maxAttempts(attempts)
        .retryDelay(Duration.ofMillis(10));
  }

  private static KeyedCalls variant(URI uri, Keys keys, boolean lookupBeforeRetry) {
    Config config =
        new Config(
            uri,
            KeyedCalls.DEFAULT_NAMESPACE,
            TIMEOUT,
            TIMEOUT,
            3,
            Duration.ofMillis(10),
            KeyedCalls.DEFAULT_LOOKUP_PATH,
            false,
            KeyedCalls.DEFAULT_KEY_HEADER,
            KeyedCalls.DEFAULT_EPOCH_HEADER);
    return new HttpKeyedCalls(config, keys, lookupBeforeRetry);
  }
}
