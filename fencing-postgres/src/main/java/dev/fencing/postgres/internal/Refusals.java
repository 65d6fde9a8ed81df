package dev.fencing.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import java.time.OffsetDateTime;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * How either engine names the reason a compare-and-set on owner and epoch matched no job: from the
 * job's state, owner, epoch and lease as a fresh read finds them, and whether its id was ever
 * issued. Each engine's refusals ({@code inplace.InPlaceRefusals}, {@code append.AppendRefusals})
 * extend this with the reads of its own tables. Epochs only go up, so a read later than the write
 * still tells the truth about who won.
 */
public abstract class Refusals {

  private final Jdbc jdbc;
  private final Config config;
  private final String sequence;
  private final RefusalLog log;

  /**
   * @param sequence the id sequence of the engine's job table
   */
  protected Refusals(Jdbc jdbc, Config config, String sequence) {
    this.jdbc = jdbc;
    this.config = config;
    this.sequence = sequence;
    this.log = new RefusalLog(jdbc);
  }

  /**
   * Records that {@code lease}'s {@code action} (complete, fail, renew, release) was refused, for
   * the operators' view, and returns the refusal: best effort, in a statement of its own, so the
   * caller gets its refusal whether or not the record was written (see {@link RefusalLog}).
   */
  public final FencedOutcome.Refused recorded(
      Lease lease, String action, FencedOutcome.Refused refused) {
    return log.record(lease, action, refused);
  }

  /** A fresh read: one statement on a connection of its own, retried after a transient failure. */
  protected final <T> T read(Function<DSLContext, T> read) {
    return jdbc.read(read);
  }

  /**
   * The refusal of a lease whose job is not there: {@link FencedOutcome.Removed} if a claim issued
   * it and the row is gone (retention or a purge removed it).
   *
   * @throws IllegalArgumentException if the lease names a job that never existed
   */
  protected final FencedOutcome.Refused gone(Lease lease) {
    if (wasIssued(lease.jobId())) {
      return new FencedOutcome.Removed(lease.key(), lease.epoch());
    }
    throw new IllegalArgumentException(
        "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
  }

  /**
   * Whether the id sequence of the job table ever handed out {@code jobId}: ids are never reused,
   * so an id at most its last value named a job that existed once.
   */
  private boolean wasIssued(long jobId) {
    Long last =
        read(
            dsl ->
                dsl.fetchValue(
                    field(
                        "(select case when is_called then last_value else 0 end from {0})",
                        SQLDataType.BIGINT, table(name(config.schema(), sequence)))));
    return last != null && jobId <= last;
  }

  /**
   * The refusal of {@code lease} by a job that now stands as given.
   *
   * @param expiredAt when the lease of the job's {@code epoch} ran out, if nothing ended the job
   *     since: it still runs under that lease, or a takeover put it back to wait (the job was taken
   *     from the lease, not finished by it); null otherwise
   */
  public static FencedOutcome.Refused classify(
      Lease lease,
      JobState state,
      @Nullable String owner,
      long epoch,
      @Nullable OffsetDateTime expiredAt) {
    String key = lease.key();
    long mine = lease.epoch().value();
    if (epoch > mine) {
      return new FencedOutcome.Superseded(key, lease.epoch(), Epoch.of(epoch), owner);
    }
    if (epoch < mine || !lease.owner().equals(owner)) {
      return new FencedOutcome.NotOwner(
          key, lease.epoch(), lease.owner(), epoch == 0 ? null : Epoch.of(epoch), owner);
    }
    if (expiredAt != null) {
      return new FencedOutcome.LeaseExpired(key, lease.epoch(), expiredAt.toInstant());
    }
    return new FencedOutcome.AlreadyFinished(key, lease.epoch(), state);
  }
}
