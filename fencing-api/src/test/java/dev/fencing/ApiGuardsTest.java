package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Validate;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The small guards of the API that the other tests reach only on their happy path: each outcome's
 * null checks, the length limits of text at their boundary, the digits-only rule of a resource, the
 * default {@code claim}, and what a forwarding queue answers when the delegate says no.
 */
class ApiGuardsTest {

  private static final Epoch E = Epoch.of(3);

  @Test
  void everyOutcomeRefusesANullKeyEpochOrOwnComponent() {
    List<Runnable> nulls =
        List.of(
            () -> new FencedOutcome.Accepted(null, E, false),
            () -> new FencedOutcome.Accepted("k", null, false),
            () -> new FencedOutcome.Superseded(null, E, E, "o"),
            () -> new FencedOutcome.Superseded("k", E, null, "o"),
            () -> new FencedOutcome.LeaseExpired("k", null, Instant.EPOCH),
            () -> new FencedOutcome.LeaseExpired("k", E, null),
            () -> new FencedOutcome.NotOwner("k", E, null, E, "o"),
            () -> new FencedOutcome.NotOwner(null, E, "o", E, "o"),
            () -> new FencedOutcome.AlreadyFinished("k", E, null),
            () -> new FencedOutcome.AlreadyFinished("k", null, JobState.COMPLETED),
            () -> new FencedOutcome.Removed(null, E),
            () -> new FencedOutcome.Removed("k", null));
    for (Runnable make : nulls) {
      assertThatThrownBy(make::run).isInstanceOf(NullPointerException.class);
    }
    assertThat(new FencedOutcome.Superseded("k", E, Epoch.of(4), null).current())
        .isEqualTo(Epoch.of(4));
  }

  @Test
  void aSnapshotRefusesANullQueueStatePayloadOrRunAtNamingIt() {
    Instant at = Instant.EPOCH;
    JobState s = JobState.PENDING;
    assertThat(new JobSnapshot(1, "q", s, null, 0, 0, 3, "{}", null, null, at, null).queue())
        .isEqualTo("q");
    assertThatThrownBy(() -> new JobSnapshot(1, null, s, null, 0, 0, 3, "{}", null, null, at, null))
        .hasMessage("queue");
    assertThatThrownBy(
            () -> new JobSnapshot(1, "q", null, null, 0, 0, 3, "{}", null, null, at, null))
        .hasMessage("state");
    assertThatThrownBy(() -> new JobSnapshot(1, "q", s, null, 0, 0, 3, null, null, null, at, null))
        .hasMessage("payload");
    assertThatThrownBy(
            () -> new JobSnapshot(1, "q", s, null, 0, 0, 3, "{}", null, null, null, null))
        .hasMessage("runAt");
  }

  @Test
  void textIsAcceptedUpToItsLimitAndRefusedOneCharacterBeyondWithItsLength() {
    String longest = "o".repeat(Validate.MAX_OWNER_LENGTH);
    assertThat(Validate.owner(longest)).isEqualTo(longest);
    assertThatThrownBy(() -> Validate.owner(longest + "o"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("owner")
        .hasMessageContaining("(" + (Validate.MAX_OWNER_LENGTH + 1) + " characters)");

    String key = "i".repeat(Validate.MAX_IDEMPOTENCY_KEY_LENGTH);
    assertThat(Validate.idempotencyKey("jobs[0].key", key)).isEqualTo(key);
    assertThatThrownBy(() -> Validate.idempotencyKey("jobs[0].key", key + "i"))
        .hasMessageStartingWith("jobs[0].key must be");
  }

  @Test
  void aResourceOfDigitsAloneIsRefusedEvenAtTheEndsOfTheDigits() {
    for (String digits : List.of("0", "9", "09", "90")) {
      assertThatThrownBy(() -> Validate.resource(digits))
          .as(digits)
          .isInstanceOf(IllegalArgumentException.class);
    }
    for (String named : List.of("a0", "9z", "0:9", "0.9")) {
      assertThat(Validate.resource(named)).isEqualTo(named);
    }
  }

  @Test
  void theDefaultClaimIsABatchOfOne() {
    List<Integer> batchSizes = new ArrayList<>();
    Job job = new Job(new Lease(7, "w", E, Instant.EPOCH), "q", "{}", 1);
    FencedQueue one = claiming(batchSizes, List.of(job));
    FencedQueue none = claiming(batchSizes, List.of());

    assertThat(one.claim("q", "w", Duration.ofSeconds(1))).contains(job);
    assertThat(none.claim("q", "w", Duration.ofSeconds(1))).isEmpty();
    assertThat(batchSizes).containsExactly(1, 1);
  }

  @Test
  void aForwardingQueueAnswersNoWhenItsDelegateDoes() throws InterruptedException {
    FencedQueue sayingNo =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                (proxy, method, args) -> method.getReturnType() == boolean.class ? false : null);
    ForwardingFencedQueue forwarding = new ForwardingFencedQueue(sayingNo) {};

    assertThat(forwarding.awaitWork("q", Duration.ofMillis(1))).isFalse();
    assertThat(forwarding.signalsWork()).isFalse();
  }

  @Test
  void aForwardingQueueOverASupplierCallsTheQueueItSuppliesAtEachCall() {
    List<Integer> first = new ArrayList<>();
    List<Integer> second = new ArrayList<>();
    Job job = new Job(new Lease(7, "w", E, Instant.EPOCH), "q", "{}", 1);
    FencedQueue[] current = {claiming(first, List.of(job))};
    ForwardingFencedQueue forwarding = new ForwardingFencedQueue(() -> current[0]) {};

    assertThat(forwarding.claimBatch("q", "w", Duration.ofSeconds(1), 5)).containsExactly(job);
    current[0] = claiming(second, List.of());
    assertThat(forwarding.claimBatch("q", "w", Duration.ofSeconds(1), 6)).isEmpty();
    assertThat(first).containsExactly(5);
    assertThat(second).containsExactly(6);
    assertThatThrownBy(
            () -> new ForwardingFencedQueue((java.util.function.Supplier<FencedQueue>) null) {})
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
  }

  @Test
  void aSchemaVersionExceptionNamesTheSchemaAndBothVersions() {
    SchemaVersionException e = new SchemaVersionException("jobs", 3, 2, "too new");
    assertThat(e.schema()).isEqualTo("jobs");
    assertThat(e.found()).isEqualTo(3);
    assertThat(e.expected()).isEqualTo(2);
  }

  /**
   * A queue whose only behaviour is claimBatch: it records the size asked and answers {@code jobs}.
   */
  private static FencedQueue claiming(List<Integer> batchSizes, List<Job> jobs) {
    return (FencedQueue)
        Proxy.newProxyInstance(
            FencedQueue.class.getClassLoader(),
            new Class<?>[] {FencedQueue.class},
            (proxy, method, args) -> {
              if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
              }
              if (method.getName().equals("claimBatch")) {
                batchSizes.add((Integer) args[3]);
                return jobs;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
