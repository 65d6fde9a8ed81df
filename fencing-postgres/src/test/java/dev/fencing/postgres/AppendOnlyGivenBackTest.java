package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On the append-only engine, a job given back from a batch whose claim row stays live (its other
 * jobs still run) is no longer owned by its lease: the claim row's {@code given_back} says so,
 * before and after the job is handed out again.
 */
@FencingDatabase
class AppendOnlyGivenBackTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void aLeaseOfAJobGivenBackFromALiveBatchWritesNothing(TestSchema schema) {
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(PostgresFencing.Engine.APPEND_ONLY)
            .build()
            .queue();
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}"));
    List<Job> batch = queue.claimBatch("q", "w1", LONG, 3);
    Job released = batch.get(0);
    Job failed = batch.get(1);
    queue.release(released.lease());
    queue.fail(failed.lease(), "later", Duration.ofHours(1));

    for (Job given : List.of(released, failed)) {
      assertThatThrownBy(() -> queue.complete(given.lease(), "{\"late\": true}"))
          .isInstanceOfSatisfying(
              FencedOffException.class,
              e ->
                  assertThat(e.refusal())
                      .isEqualTo(
                          new FencedOutcome.AlreadyFinished(
                              given.lease().key(), Epoch.FIRST, JobState.PENDING)));
      assertThatThrownBy(() -> queue.renew(given.lease(), LONG))
          .isInstanceOf(FencedOffException.class);
    }

    Job again = queue.claim("q", "w1", LONG).orElseThrow();
    assertThat(again.id()).isEqualTo(released.id());
    assertThat(again.epoch()).isEqualTo(Epoch.of(2));
    assertThatThrownBy(() -> queue.complete(released.lease(), "{\"late\": true}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.Superseded(
                            released.lease().key(), Epoch.FIRST, Epoch.of(2), "w1")));
    assertThat(queue.complete(again.lease(), "{}").repeat()).isFalse();
    assertThat(queue.complete(batch.get(2).lease(), "{}").repeat()).isFalse();
    assertThat(queue.find(ids.get(1)).orElseThrow().state()).isEqualTo(JobState.PENDING);
  }
}
