package dev.fencing.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import java.time.OffsetDateTime;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * How either engine names the reason a compare-and-set on owner and epoch matched no job: from the
 * job's state, owner, epoch and lease as a fresh read finds them, and whether its id was ever
 * issued.
 */
public final class Refusals {

  private Refusals() {}

  /** Whether {@code sequence} (of a job table) ever handed out {@code jobId}. */
  public static boolean wasIssued(Jdbc jdbc, Config config, String sequence, long jobId) {
    Long last =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .fetchValue(
                                field(
                                    "(select case when is_called then last_value else 0 end"
                                        + " from {0})",
                                    SQLDataType.BIGINT, table(name(config.schema(), sequence))))));
    return last != null && jobId <= last;
  }

  /** The refusal of {@code lease} by a job that now stands as given. */
  public static FencedOutcome.Refused classify(
      Lease lease,
      JobState state,
      @Nullable String owner,
      long epoch,
      @Nullable OffsetDateTime leaseExpiresAt) {
    String key = lease.key();
    long mine = lease.epoch().value();
    if (epoch > mine) {
      return new FencedOutcome.Superseded(key, lease.epoch(), Epoch.of(epoch), owner);
    }
    if (epoch < mine || !lease.owner().equals(owner)) {
      return new FencedOutcome.NotOwner(
          key, lease.epoch(), lease.owner(), epoch == 0 ? null : Epoch.of(epoch), owner);
    }
    if (state == JobState.RUNNING && leaseExpiresAt != null) {
      return new FencedOutcome.LeaseExpired(key, lease.epoch(), leaseExpiresAt.toInstant());
    }
    return new FencedOutcome.AlreadyFinished(key, lease.epoch(), state);
  }
}
