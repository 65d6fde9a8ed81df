package dev.fencing.postgres.internal.inplace;

import static org.jooq.impl.DSL.currentOffsetDateTime;

import dev.fencing.JobState;
import dev.fencing.postgres.admin.EpochClaim;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RefusalLog;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A job's claims as the update-in-place engine keeps them, which is in its row only (no claim
 * writes more): the owners of the last 16 epochs ({@code owners}), the marks of the fails and
 * releases among them ({@code settled_epochs}), and the current epoch's lease and end. An older
 * epoch that was neither failed nor released ended when a later claim took the job over (its lease
 * ran out, or an operator failed and requeued the job).
 */
final class InPlaceHistory {

  private InPlaceHistory() {}

  static Optional<JobHistory> read(DSLContext dsl, long jobId) {
    FencingJobRecord r = InPlaceRow.read(dsl, jobId);
    if (r == null) {
      return Optional.empty();
    }
    long epoch = r.getEpoch();
    String[] owners = r.getOwners();
    List<Long> settled = Arrays.asList(r.getSettledEpochs());
    List<EpochClaim> claims = new ArrayList<>();
    if (epoch >= 1) {
      Long cancelled = Cancels.cancelledLease(dsl, jobId);
      OffsetDateTime now = dsl.select(currentOffsetDateTime()).fetchOne().value1();
      claims.add(
          new EpochClaim(
              epoch,
              r.getOwner(),
              "claimed".equals(r.getLastEvent()) ? r.getUpdatedAt().toInstant() : null,
              AdminSupport.instant(r.getLeaseExpiresAt()),
              currentEnd(r, settled, cancelled, now)));
    }
    // element i of owners (oldest first) held epoch epoch - owners.length + 1 + i
    for (int i = owners.length - 2; i >= 0; i--) {
      long e = epoch - owners.length + 1 + i;
      if (e >= 1) {
        claims.add(new EpochClaim(e, owners[i], null, null, settledEnd(settled, e, "taken over")));
      }
    }
    return Optional.of(new JobHistory(claims, epoch <= 1, RefusalLog.read(dsl, jobId)));
  }

  /** How the current epoch's claim ended, from the row as it stands. */
  private static String currentEnd(
      FencingJobRecord r, List<Long> settled, @Nullable Long cancelledEpoch, OffsetDateTime now) {
    long epoch = r.getEpoch();
    if (cancelledEpoch != null && cancelledEpoch == epoch) {
      return "cancelled";
    }
    return switch (JobState.fromDbName(r.getStatus())) {
      case COMPLETED -> "completed";
      case RUNNING ->
          r.getLeaseExpiresAt() != null && r.getLeaseExpiresAt().isAfter(now)
              ? "running"
              : "expired";
      case FAILED ->
          "failed".equals(r.getLastEvent())
                  && r.getLastError() != null
                  && r.getLastError().startsWith(LeaseSql.LEASE_RAN_OUT)
              ? "expired"
              : settledEnd(settled, epoch, "failed");
      // waiting again: given back by its holder, or requeued after it failed
      case PENDING ->
          settledEnd(settled, epoch, "requeued".equals(r.getLastEvent()) ? "failed" : "unknown");
    };
  }

  /**
   * {@code failed} or {@code released} if the epoch's holder gave the job back, else {@code
   * otherwise}.
   */
  private static String settledEnd(List<Long> settled, long epoch, String otherwise) {
    if (settled.contains(epoch)) {
      return "failed";
    }
    return settled.contains(-epoch) ? "released" : otherwise;
  }
}
