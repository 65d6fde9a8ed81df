package dev.fencing.testkit.property;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.QueueLimits;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * One interleaving's queue under a running limit: sets it before the first step, counts the valid
 * leases after every action ({@link Invariant#VALID_LEASES_WITHIN_LIMIT}), and lifts it before the
 * end checks, whose checker must be able to claim every job left claimable. Two counts: the store's
 * own ({@link ValidLeaseCount}, when the backend has one), and the jobs' snapshots read after one
 * reading of the database clock. Steps run one after another and nothing acts between them, so a
 * snapshot read after that reading shows the job as it was at it.
 */
final class RunningLimitWatch {

  private final FencedQueue queue;
  private final DataSource pool;
  private final String schema;
  private final @Nullable ValidLeaseCount store;
  private final String queueName;
  private final int max;

  RunningLimitWatch(
      FencedQueue queue,
      DataSource pool,
      String schema,
      @Nullable ValidLeaseCount store,
      String queueName,
      int max) {
    this.queue = queue;
    this.pool = pool;
    this.schema = schema;
    this.store = store;
    this.queueName = queueName;
    this.max = max;
  }

  /** Sets the limit; returns the timeline's line. */
  String set() {
    queue.setLimits(queueName, QueueLimits.maxRunning(max));
    return "queue "
        + queueName
        + " limited to "
        + max
        + " running job(s)"
        + (store == null ? "" : ", counted by the store after every action");
  }

  /** Lifts the limit, so that the end checks' claim is not held back by it. */
  void lift() {
    queue.setLimits(queueName, QueueLimits.NONE);
  }

  /** Reads the database clock, before the snapshots {@link #check} counts. */
  Instant now() {
    try (Connection c = pool.getConnection();
        ResultSet r = c.createStatement().executeQuery("select clock_timestamp()")) {
      r.next();
      return r.getObject(1, OffsetDateTime.class).toInstant();
    } catch (SQLException e) {
      throw new IllegalStateException("the database went away: " + e.getMessage(), e);
    }
  }

  /**
   * Counts the valid leases both ways and reports to {@code oracle} when either count is over the
   * limit: {@code snapshots} were read after {@code before}.
   */
  void check(int step, Instant before, List<Oracle.State> snapshots, Oracle oracle) {
    List<String> valid = new ArrayList<>();
    for (Oracle.State state : snapshots) {
      JobSnapshot job = state.job();
      if (job != null
          && job.state() == JobState.RUNNING
          && job.leaseExpiresAt() != null
          && job.leaseExpiresAt().isAfter(before)) {
        valid.add("job " + job.id() + " @ epoch " + job.epoch() + " by " + job.owner());
      }
    }
    long counted = store == null ? -1 : countIn(store);
    if (valid.size() > max || counted > max) {
      oracle.limitExceeded(
          step,
          queueName
              + " has a running limit of "
              + max
              + ", but "
              + (counted > max
                  ? counted + " jobs held valid leases as the store counts them, "
                  : "")
              + valid.size()
              + " as their snapshots show at "
              + before
              + ": "
              + valid);
    }
  }

  private long countIn(ValidLeaseCount store) {
    try (Connection c = pool.getConnection()) {
      return store.validLeases(c, schema, queueName);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "counting the valid leases of " + queueName + " failed: " + e.getMessage(), e);
    }
  }
}
