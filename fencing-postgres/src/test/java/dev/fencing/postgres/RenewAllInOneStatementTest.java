package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A heartbeat for everything in flight was one round trip per lease (the API's default loops {@code
 * renew}); on PostgreSQL it is one statement for the whole batch, matched on whole leases. The one
 * statement is the update-in-place engine's (the append-only engine renews the claim rows in one
 * transaction of a few statements, whatever the batch); what a mixed batch answers, both engines.
 */
@FencingDatabase
class RenewAllInOneStatementTest {

  @Test
  void aHeartbeatForFiftyLeasesIsOneStatement(TestSchema schema) {
    AtomicInteger statements = new AtomicInteger();
    FencedQueue queue =
        PostgresFencing.builder(Rows.counting(schema.dataSource(), statements))
            .schema(schema.name())
            // the one UPDATE of fencing_job is this engine's
            .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
            .build()
            .queue();
    queue.enqueueAll("q", Collections.nCopies(50, "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofSeconds(30), 50);
    List<Lease> leases = jobs.stream().map(Job::lease).toList();

    statements.set(0);
    List<Renewal> renewals = queue.renewAll(leases, Duration.ofMinutes(10));

    assertThat(statements.get()).isEqualTo(1);
    assertThat(renewals).hasSize(50).allMatch(r -> r instanceof Renewal.Renewed);
    for (int i = 0; i < 50; i++) {
      Lease renewed = renewals.get(i).lease();
      assertThat(renewed.jobId()).isEqualTo(leases.get(i).jobId());
      assertThat(renewed.expiresAt()).isAfter(Instant.now().plus(Duration.ofMinutes(9)));
      assertThat(queue.find(renewed.jobId()).orElseThrow().leaseExpiresAt())
          .isEqualTo(renewed.expiresAt());
    }
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aMixedBatchRenewsWhatItOwnsAndExplainsTheRest(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(engine)
            .build()
            .queue();
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}"));
    Job expiring = queue.claim("q", "w1", Duration.ofMillis(200)).orElseThrow();
    List<Job> live = queue.claimBatch("q", "w1", Duration.ofSeconds(30), 2);
    queue.complete(live.get(1).lease(), "{}");
    Thread.sleep(400);

    List<Lease> batch = new ArrayList<>();
    batch.add(live.get(0).lease());
    batch.add(expiring.lease());
    batch.add(live.get(1).lease());
    batch.add(live.get(0).lease());
    List<Renewal> renewals = queue.renewAll(batch, Duration.ofMinutes(1));

    assertThat(renewals.get(0)).isInstanceOf(Renewal.Renewed.class);
    assertThat(((Renewal.Lost) renewals.get(1)).refusal())
        .isInstanceOf(FencedOutcome.LeaseExpired.class);
    assertThat(((Renewal.Lost) renewals.get(2)).refusal())
        .isEqualTo(
            new FencedOutcome.AlreadyFinished(
                Long.toString(live.get(1).id()), Epoch.FIRST, dev.fencing.JobState.COMPLETED));
    assertThat(renewals.get(3)).as("the same lease twice: one outcome").isEqualTo(renewals.get(0));
    assertThat(ids).contains(expiring.id());
  }
}
