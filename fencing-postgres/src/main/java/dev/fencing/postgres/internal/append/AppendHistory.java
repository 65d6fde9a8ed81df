package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static org.jooq.impl.DSL.currentOffsetDateTime;

import dev.fencing.postgres.admin.EpochClaim;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RefusalLog;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record5;
import org.jspecify.annotations.Nullable;

/**
 * A job's claims as the append-only engine keeps them: every hand-out ({@code
 * fencing_append_handout}) with its claim row's owner, claim time and lease; how each ended is the
 * next hand-out's {@code came_from}, and for the newest one the job's {@code done} or {@code
 * requeue} row, or its lease. A claim row retention removed leaves its hand-out without owner.
 */
final class AppendHistory {

  private AppendHistory() {}

  static Optional<JobHistory> read(DSLContext dsl, long jobId) {
    AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
    if (state == null) {
      return Optional.empty();
    }
    List<Record5<Long, String, String, OffsetDateTime, OffsetDateTime>> handouts =
        new ArrayList<>(handouts(dsl, jobId).reversed());
    Long cancelled = Cancels.cancelledLease(dsl, jobId);
    OffsetDateTime now = dsl.select(currentOffsetDateTime()).fetchOne().value1();
    List<EpochClaim> claims = new ArrayList<>();
    boolean complete = true;
    for (int i = 0; i < handouts.size(); i++) {
      var handout = handouts.get(i);
      long epoch = handout.value1();
      String ended =
          i > 0
              ? endedBy(handouts.get(i - 1).value2())
              : newestEnd(state, epoch, cancelled, handout.value5(), now);
      complete &= handout.value3() != null;
      claims.add(
          new EpochClaim(
              epoch,
              handout.value3(),
              AdminSupport.instant(handout.value4()),
              AdminSupport.instant(handout.value5()),
              ended));
    }
    return Optional.of(new JobHistory(claims, complete, RefusalLog.read(dsl, jobId)));
  }

  /**
   * The job's hand-outs, oldest first: epoch, how it came ({@code came_from}), and its claim row's
   * owner, claim time and lease (null once retention removed the claim row).
   */
  static List<Record5<Long, String, String, OffsetDateTime, OffsetDateTime>> handouts(
      DSLContext dsl, long jobId) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.select(h.EPOCH, h.CAME_FROM, c.OWNER, c.CLAIMED_AT, c.LEASE_EXPIRES_AT)
        .from(h)
        .leftJoin(c)
        .on(c.ID.eq(h.CLAIM_ID))
        .where(h.JOB_ID.eq(jobId))
        .orderBy(h.EPOCH)
        .fetch();
  }

  /** How a hand-out ended, from how the next one came: fail, release, expired or requeued. */
  private static String endedBy(@Nullable String cameFrom) {
    return switch (String.valueOf(cameFrom)) {
      case "fail", "requeued" -> "failed"; // requeued: an operator requeued it after it failed
      case "release" -> "released";
      case "expired" -> "expired";
      default -> "unknown";
    };
  }

  /** How the newest hand-out ended, from the job's rows as they stand. */
  private static String newestEnd(
      AppendState state,
      long epoch,
      @Nullable Long cancelledEpoch,
      @Nullable OffsetDateTime lease,
      OffsetDateTime now) {
    if (cancelledEpoch != null && cancelledEpoch == epoch) {
      return "cancelled";
    }
    if (state.doneStatus() != null) {
      if ("completed".equals(state.doneStatus())) {
        return "completed";
      }
      return state.doneError() != null && state.doneError().startsWith(LeaseSql.LEASE_RAN_OUT)
          ? "expired"
          : "failed";
    }
    if (state.readyAt() != null) {
      return endedBy(state.reason());
    }
    return lease != null && lease.isAfter(now) ? "running" : "expired";
  }
}
