package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A handle on a single-host URL (not the documented multi-host one) whose node is demoted by a
 * switchover: its writes are refused as read-only (SQLSTATE 25006), which the queue retries and
 * reports as transient, dropping each such connection; a wait for work neither hangs nor listens
 * there; and once the node leads again, the same handle claims again, nothing wedged.
 */
@ExtendWith(SharedPatroniCluster.class)
class SingleHostUrlOfADemotedPrimaryTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final int TRIES = 40;

  @Test
  void writesThereAreTransientFailuresAndCarryOnOnceItLeadsAgain(PatroniCluster cluster) {
    cluster.heal(WAIT);
    int node = cluster.leader();
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.nodeUrl(node), cluster.user(), cluster.password(), "patroni-node");
    FencedQueue queue =
        PostgresFencing.builder(db.pooledDataSource(2))
            .schema(db.freshSchema("demoted"))
            .transientRetries(1)
            .retryWait(Duration.ofMillis(50))
            .build()
            .queue();
    queue.enqueue("q", "{}");
    queue.enqueue("q", "{}");
    Job before = queue.claim("q", "before", LEASE).orElseThrow();
    cluster.awaitReplicated(WAIT);

    long switched = System.nanoTime();
    cluster.switchover();
    // the first tries may meet the node restarting as a standby (SQLSTATE 08006, 57P01)
    StoreUnavailableException readOnly = null;
    for (int i = 0; i < TRIES && readOnly == null; i++) {
      Throwable refused = catchThrowable(() -> queue.claim("q", "after", LEASE));
      assertThat(refused)
          .as("a claim on a demoted node")
          .isInstanceOf(StoreUnavailableException.class);
      if (hasState(refused, "25006")) {
        readOnly = (StoreUnavailableException) refused;
      } else {
        OsProcesses.pause(Duration.ofMillis(250));
      }
    }
    assertThat(readOnly).as("a claim refused as read-only within %d tries", TRIES).isNotNull();
    System.out.printf(
        "[demoted] a claim refused as read-only %d ms after the switchover%n",
        (System.nanoTime() - switched) / 1_000_000);
    assertThat(readOnly)
        .hasMessageContaining("transient failures retried 1 times")
        .hasMessageContaining("read-only transaction");
    assertThat(catchThrowable(() -> queue.awaitWork("q", Duration.ofMillis(300))))
        .as("a wait for work on a standby ends at its timeout")
        .isNull();

    cluster.switchover(); // two nodes: the leadership goes back to the node the URL names
    assertThat(cluster.leader()).isEqualTo(node);
    Optional<Job> after = Optional.empty();
    for (int i = 0; i < TRIES && after.isEmpty(); i++) {
      try {
        after = queue.claim("q", "after", LEASE);
        assertThat(after).as("the second job").isPresent();
      } catch (StoreUnavailableException stillRestarting) {
        OsProcesses.pause(Duration.ofMillis(250));
      }
    }
    assertThat(after).as("a claim within %d tries once the node leads again", TRIES).isPresent();
    System.out.printf(
        "[demoted] claims again %d ms after the first switchover%n",
        (System.nanoTime() - switched) / 1_000_000);
    assertThat(after.get().lease().epoch()).isGreaterThan(before.lease().epoch());
  }

  private static boolean hasState(Throwable failure, String state) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && state.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
