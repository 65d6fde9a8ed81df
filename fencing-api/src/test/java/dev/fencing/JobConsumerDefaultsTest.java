package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The default {@code renewAll} and {@code completeAll} of {@link JobConsumer}, which a backend
 * without batched statements inherits: one outcome per item, in order, refusals returned, not
 * thrown.
 */
class JobConsumerDefaultsTest {

  private static final Instant LATER = Instant.parse("2030-01-01T00:00:00Z");

  /** Owns job 1 at epoch 2; everything else was superseded. A result "bad" is refused. */
  private static final class OneJobQueue implements JobConsumer {

    private final List<OutboxMessage> written = new java.util.ArrayList<>();

    private static FencedOutcome.Superseded superseded(Lease lease) {
      return new FencedOutcome.Superseded(lease.key(), lease.epoch(), Epoch.of(9), "other");
    }

    private static boolean owns(Lease lease) {
      return lease.jobId() == 1 && lease.epoch().equals(Epoch.of(2));
    }

    @Override
    public Lease renew(Lease lease, Duration leaseLength) {
      if (!owns(lease)) {
        throw new FencedOffException(superseded(lease));
      }
      return new Lease(lease.jobId(), lease.owner(), lease.epoch(), LATER);
    }

    @Override
    public FencedOutcome.Accepted complete(Lease lease, String result) {
      if (result.equals("bad")) {
        throw new IllegalArgumentException("result must be JSON, but was 'bad'");
      }
      if (!owns(lease)) {
        throw new FencedOffException(superseded(lease));
      }
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
    }

    @Override
    public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FencedOutcome.Accepted complete(
        Lease lease, String result, List<OutboxMessage> messages) {
      FencedOutcome.Accepted accepted = complete(lease, result);
      written.addAll(messages);
      return accepted;
    }

    @Override
    public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FencedOutcome.Accepted failFinally(Lease lease, String error) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FencedOutcome.Accepted release(Lease lease) {
      throw new UnsupportedOperationException();
    }
  }

  private final OneJobQueue queue = new OneJobQueue();
  private final Lease owned = new Lease(1, "w", Epoch.of(2), Instant.EPOCH);
  private final Lease zombie = new Lease(2, "w", Epoch.of(1), Instant.EPOCH);

  @Test
  void renewAllGivesEachLeaseItsOwnOutcomeInOrder() {
    List<Renewal> renewals = queue.renewAll(List.of(zombie, owned), Duration.ofSeconds(1));
    assertThat(renewals)
        .containsExactly(
            new Renewal.Lost(
                zombie, new FencedOutcome.Superseded("2", Epoch.FIRST, Epoch.of(9), "other")),
            new Renewal.Renewed(new Lease(1, "w", Epoch.of(2), LATER)));
  }

  @Test
  void renewAllChecksTheLeaseLengthFirst() {
    assertThatThrownBy(() -> queue.renewAll(List.of(owned), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("leaseLength");
    assertThat(queue.renewAll(List.of(), Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void completeAllReturnsRefusalsAndNamesTheBadItemByPosition() {
    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new JobConsumer.Completion(owned, "{}"),
                new JobConsumer.Completion(zombie, "{}"),
                new JobConsumer.Completion(owned, "bad")));
    assertThat(outcomes).hasSize(3);
    assertThat(outcomes.get(0)).isEqualTo(new FencedOutcome.Accepted("1", Epoch.of(2), false));
    assertThat(outcomes.get(1))
        .isEqualTo(new FencedOutcome.Superseded("2", Epoch.FIRST, Epoch.of(9), "other"));
    assertThat(outcomes.get(2))
        .isInstanceOfSatisfying(
            CommitOutcome.Invalid.class,
            invalid -> {
              assertThat(invalid.key()).isEqualTo("1");
              assertThat(invalid.epoch()).isEqualTo(Epoch.of(2));
              assertThat(invalid.error())
                  .hasMessage("completions[2]: result must be JSON, but was 'bad'")
                  .hasCauseInstanceOf(IllegalArgumentException.class);
            });
  }

  private final OutboxMessage mail = new OutboxMessage("mail", "a@b", "{}");

  @Test
  void completeWithoutMessagesIsAPlainComplete() {
    assertThat(queue.complete(owned, "{}", List.of()))
        .isEqualTo(new FencedOutcome.Accepted("1", Epoch.of(2), false));
    assertThatThrownBy(() -> queue.complete(zombie, "{}", List.of()))
        .isInstanceOf(FencedOffException.class);
  }

  @Test
  void completeAllPassesEachCompletionsMessages() {
    assertThat(queue.completeAll(List.of(new JobConsumer.Completion(owned, "{}", List.of()))))
        .containsExactly(new FencedOutcome.Accepted("1", Epoch.of(2), false));
    assertThat(queue.completeAll(List.of(new JobConsumer.Completion(owned, "{}", List.of(mail)))))
        .containsExactly(new FencedOutcome.Accepted("1", Epoch.of(2), false));
    assertThat(queue.written).containsExactly(mail);
  }

  @Test
  void theDefaultAwaitWorkHasNoSignalsItSleepsAndSaysSo() throws InterruptedException {
    JobConsumer queue = new OneJobQueue();
    assertThat(queue.signalsWork()).isFalse();
    long started = System.nanoTime();
    assertThat(queue.awaitWork("q", Duration.ofMillis(20))).isFalse();
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
  }

  @Test
  void theDefaultAwaitWorkNamesABadParameter() {
    JobConsumer queue = new OneJobQueue();
    assertThatThrownBy(() -> queue.awaitWork("Bad-Name", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue")
        .hasMessageContaining("Bad-Name");
    assertThatThrownBy(() -> queue.awaitWork("q", Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout must be between")
        .hasMessageContaining("PT-5S");
  }
}
