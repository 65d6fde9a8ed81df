package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim served every expired lease before any pending job. Jobs whose workers keep dying kept
 * their leases running out, so there was always an expired lease to serve first, and the pending
 * jobs behind them were never claimed. Now the oldest ready work goes first, whatever its kind.
 */
@FencingDatabase
class ExpiredLeasesStarvedPendingJobsTest {

  private static final Duration DYING = Duration.ofMillis(200);

  /**
   * The first leases are long so that the pending jobs enqueued after them are ready before they
   * run out even on a loaded machine (with 200 ms, a slow enqueue once made the leases the older
   * work).
   */
  private static final Duration FIRST_LEASE = Duration.ofSeconds(2);

  @Test
  void pendingJobsAreClaimedInReadyOrderWhileLeasesKeepRunningOut(TestSchema schema)
      throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .maxAttempts(100)
            .build()
            .queue();
    List<Long> poison = queue.enqueueAll("q", Collections.nCopies(10, "{\"kills\": true}"));
    assertThat(queue.claimBatch("q", "dies", FIRST_LEASE, 10)).hasSize(10);
    List<Long> fresh = queue.enqueueAll("q", Collections.nCopies(10, "{}"));
    Thread.sleep(FIRST_LEASE.toMillis());

    List<List<Long>> rounds = new ArrayList<>();
    for (int round = 0; round < 6; round++) {
      Thread.sleep(DYING.toMillis() + 100);
      // each worker takes five jobs and dies holding them: their leases run out again
      List<Job> claimed = queue.claimBatch("q", "dies-" + round, DYING, 5);
      rounds.add(claimed.stream().map(Job::id).toList());
    }
    List<Long> freshInClaimOrder =
        rounds.stream().flatMap(List::stream).filter(fresh::contains).distinct().toList();
    System.out.println(
        "claims per round (f = pending job, p = expired lease): "
            + rounds.stream()
                .map(r -> r.stream().map(id -> fresh.contains(id) ? "f" : "p").toList())
                .toList());

    assertThat(freshInClaimOrder).as("every pending job, in ready order").isEqualTo(fresh);
    assertThat(rounds.get(0)).as("due before any lease ran out").isEqualTo(fresh.subList(0, 5));
    assertThat(rounds.get(1)).isEqualTo(fresh.subList(5, 10));
    assertThat(rounds.get(2))
        .as("then the leases, oldest expiry first")
        .isEqualTo(poison.subList(0, 5));
  }
}
