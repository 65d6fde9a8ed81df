package dev.fencing.postgres.internal.append;

import dev.fencing.postgres.internal.RenderedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One candidate for a claim's batch, and where it came from: a fresh job of the window ({@link
 * AppendWindow}), a due {@code requeue} row or an open job of an expired claim row ({@link
 * Reclaims}). A claim merges the three sources by {@link #earlier}.
 *
 * @param ready when it became ready: a fresh job at its enqueue, a {@code requeue} row at its due
 *     time, an expired claim's job when the lease ran out
 * @param previousEpoch the epoch of its last hand-out, 0 for a fresh job
 * @param attemptsUsed the attempts it used so far
 * @param cameFrom what its hand-out records it came from ({@code fresh}, {@code expired}, or the
 *     reason of its {@code requeue} row)
 * @param xid for a fresh job, the enqueueing transaction's id (the window's order); else 0
 * @param claimId for an expired claim's job, that claim row; else 0
 * @param previousOwner the owner of its last hand-out, null for a fresh job
 * @param priority its priority: a parked job's ({@link Parked}), 0 for every other
 */
record Candidate(
    long jobId,
    OffsetDateTime ready,
    long previousEpoch,
    int attemptsUsed,
    String cameFrom,
    @Nullable String lastError,
    String payload,
    int maxAttempts,
    long xid,
    long claimId,
    @Nullable String previousOwner,
    int priority) {

  /**
   * Runs {@code sql}, a query of waiting jobs of {@code queue} ({@link Reclaims}' requeue rows,
   * {@link Parked}'s parked ones) with the parameters {@code queue} and {@code limit}, and reads
   * its rows: job id, ready time, previous epoch, attempts used, came from, last error, previous
   * owner, payload, max attempts, and, when {@code ranked}, the priority (else 0).
   */
  static List<Candidate> waiting(
      Connection connection, RenderedSql sql, String queue, int limit, boolean ranked)
      throws SQLException {
    return waiting(connection, sql, Map.of("queue", queue, "limit", limit), ranked);
  }

  /** As above, with the statement's parameters {@code values}. */
  static List<Candidate> waiting(
      Connection connection, RenderedSql sql, Map<String, Object> values, boolean ranked)
      throws SQLException {
    List<Candidate> items = new ArrayList<>();
    try (PreparedStatement s = sql.prepare(connection, values);
        ResultSet r = sql.query(s)) {
      while (r.next()) {
        items.add(
            new Candidate(
                r.getLong(1),
                r.getObject(2, OffsetDateTime.class),
                r.getLong(3),
                r.getInt(4),
                r.getString(5),
                r.getString(6),
                r.getString(8),
                r.getInt(9),
                0,
                0,
                r.getString(7),
                ranked ? r.getInt(10) : 0));
      }
    }
    return items;
  }

  /**
   * Whether this one goes before {@code other}: a higher priority, else became ready earlier, else
   * a lower job id.
   */
  boolean earlier(Candidate other) {
    return earlier(other, 0);
  }

  /**
   * Whether this one goes before {@code other}, in the aged order when {@code agingMicros} is above
   * 0 ({@link dev.fencing.QueueLimits#withPriorityAging}): became ready earlier once each is moved
   * back by its priority times the aging, else a lower job id.
   */
  boolean earlier(Candidate other, long agingMicros) {
    if (agingMicros <= 0 && priority != other.priority) {
      return priority > other.priority;
    }
    int byTime =
        ready
            .minus(priority * agingMicros, ChronoUnit.MICROS)
            .compareTo(other.ready.minus(other.priority * agingMicros, ChronoUnit.MICROS));
    return byTime < 0 || (byTime == 0 && jobId < other.jobId);
  }
}
