package dev.fencing.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.JobConsumer;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class LeaseCheckTest {

  private static final Lease LEASE =
      new Lease(42, "worker-a", Epoch.FIRST, Instant.parse("2030-01-01T00:00:00Z"));

  @Test
  void aRenewedLeaseIsCurrent() {
    LeaseCheck check = LeaseCheck.renewing(renewing(lease -> lease), LEASE, Duration.ofSeconds(30));
    assertThat(check.lost()).isEmpty();
  }

  @Test
  void aRefusedRenewalIsALostLeaseSayingWhy() {
    FencedOutcome.Superseded superseded =
        new FencedOutcome.Superseded("42", Epoch.FIRST, Epoch.of(2), "worker-b");
    JobConsumer queue =
        renewing(
            lease -> {
              throw new FencedOffException(superseded);
            });
    assertThat(LeaseCheck.renewing(queue, LEASE, Duration.ofSeconds(30)).lost())
        .contains("the lease was not renewed: " + superseded);
  }

  @Test
  void aRenewalThatFailsIsALostLease() {
    JobConsumer queue =
        renewing(
            lease -> {
              throw new IllegalStateException("connection refused");
            });
    assertThat(LeaseCheck.renewing(queue, LEASE, Duration.ofSeconds(30)).lost())
        .hasValueSatisfying(reason -> assertThat(reason).contains("connection refused"));
  }

  @Test
  void aBadLeaseLengthIsRefusedNamed() {
    assertThatThrownBy(() -> LeaseCheck.renewing(renewing(l -> l), LEASE, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("leaseLength must be between");
  }

  /** A queue whose only working method is {@link JobConsumer#renew}. */
  private static JobConsumer renewing(UnaryOperator<Lease> renew) {
    return new JobConsumer() {
      @Override
      public Lease renew(Lease lease, Duration leaseLength) {
        return renew.apply(lease);
      }

      @Override
      public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
        throw new UnsupportedOperationException();
      }

      @Override
      public FencedOutcome.Accepted complete(Lease lease, String result) {
        throw new UnsupportedOperationException();
      }

      @Override
      public FencedOutcome.Accepted complete(
          Lease lease, String result, List<OutboxMessage> messages) {
        throw new UnsupportedOperationException();
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
    };
  }
}
