package dev.fencing.postgres;

import dev.fencing.Maintenance;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.RetentionBatch;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Retention and storage upkeep for a PostgreSQL queue, from {@link PostgresFencing#maintenance()},
 * so that it can run for months with a claim that costs the same as on the first day.
 *
 * <pre>{@code
 * Maintenance maintenance = fencing.maintenance().keepFinished(Duration.ofDays(7)).build();
 * FencedWorkers.builder(queue).maintenance(maintenance, Duration.ofMinutes(1))...
 * }</pre>
 *
 * <p>Each {@link #runRound() round} removes (or, with {@link Builder#archive}, moves to {@code
 * fencing_job_archive}) at most {@link Builder#batchSize} completed and failed jobs whose {@code
 * finished_at} is older than {@link Builder#keepFinished}, oldest first, in one transaction that
 * locks only those rows and skips rows another round holds: a claim or commit never waits for it. A
 * job with an undelivered outbox message is kept until the relay delivered it; delivered messages
 * go with their job. When {@link Builder#vacuumEvery} has passed since this instance's last VACUUM,
 * the round then runs {@code VACUUM (SKIP_LOCKED)} on the job and outbox tables, so the dead row
 * versions every claim, renewal and commit leaves behind are cleared from the indexes that claims
 * scan, at a steady pace instead of when autovacuum gets to a large table. A runtime runs rounds at
 * least every {@code vacuumEvery} ({@link #upkeepEvery()}) whatever its own pace; from cron, run
 * them at least that often, or VACUUM runs only as often as they do.
 *
 * <p><b>Idempotency keys</b> live as long as their job: a key is remembered until {@code
 * keepFinished} after its job finished, and enqueueing it after that adds a new job. Choose {@code
 * keepFinished} longer than any producer retries.
 *
 * <p><b>Zombies</b>: a worker stalled past its job's whole retention time finds the row gone; its
 * commit is refused with {@link dev.fencing.FencedOutcome.Removed}.
 *
 * <p>VACUUM needs the owner of the tables; as another user it only logs PostgreSQL's warning, and
 * autovacuum (tuned by the schema's storage settings) does the work alone. A long-running
 * transaction anywhere in the database holds back what any VACUUM can clear (see
 * docs/BENCHMARKS.md, "Retention"). Safe for concurrent use, from several processes too.
 *
 * @since 0.1
 */
public final class PostgresMaintenance implements Maintenance {

  /** How long finished jobs are kept when not set: 7 days. */
  public static final Duration DEFAULT_KEEP_FINISHED = Duration.ofDays(7);

  /** Jobs removed per round when not set. */
  public static final int DEFAULT_BATCH_SIZE = 1_000;

  /** The pause between this instance's VACUUMs when not set: 10 s. */
  public static final Duration DEFAULT_VACUUM_EVERY = Duration.ofSeconds(10);

  private final Supplier<Retention> retention;
  private final Duration keepFinished;
  private final boolean archive;
  private final int batchSize;
  private final long vacuumEveryNanos;
  private final LongSupplier nanoClock;
  private final AtomicLong lastVacuum;

  private PostgresMaintenance(Builder b) {
    this.retention = b.retention;
    this.keepFinished = b.keepFinished;
    this.archive = b.archive;
    this.batchSize = b.batchSize;
    this.vacuumEveryNanos = b.vacuumEvery.toNanos();
    this.nanoClock = b.nanoClock;
    // the first round vacuums
    this.lastVacuum = new AtomicLong(nanoClock.getAsLong() - vacuumEveryNanos);
  }

  /**
   * {@inheritDoc}
   *
   * @throws StoreUnavailableException if the database failed after the transient retries; nothing
   *     of the failed batch was removed
   * @throws dev.fencing.SchemaNotInstalledException if the schema has no fencing tables
   */
  @Override
  public Report runRound() {
    RetentionBatch batch = retention.get().batch(keepFinished, null, batchSize, archive);
    if (vacuumDue()) {
      retention.get().vacuum();
    }
    return new Report(batch.jobs(), batch.archived(), batch.messages(), batch.jobs() == batchSize);
  }

  /** Returns {@code vacuumEvery}, or empty when it is zero (no VACUUM). */
  @Override
  public Optional<Duration> upkeepEvery() {
    return vacuumEveryNanos == 0
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(vacuumEveryNanos));
  }

  /** Takes the VACUUM slot when due, so that concurrent rounds of this instance run one. */
  private boolean vacuumDue() {
    if (vacuumEveryNanos == 0) {
      return false;
    }
    long now = nanoClock.getAsLong();
    long last = lastVacuum.get();
    return now - last >= vacuumEveryNanos && lastVacuum.compareAndSet(last, now);
  }

  @Override
  public String toString() {
    return "PostgresMaintenance[keepFinished="
        + keepFinished
        + ", archive="
        + archive
        + ", batchSize="
        + batchSize
        + ", vacuumEvery="
        + Duration.ofNanos(vacuumEveryNanos)
        + "]";
  }

  /** Configures {@link PostgresMaintenance}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final Supplier<Retention> retention;
    private Duration keepFinished = DEFAULT_KEEP_FINISHED;
    private boolean archive;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration vacuumEvery = DEFAULT_VACUUM_EVERY;
    private LongSupplier nanoClock = System::nanoTime;

    Builder(Supplier<Retention> retention) {
      this.retention = retention;
    }

    /**
     * How long a completed or failed job is kept after it finished (database clock), 1 min to 3650
     * days; default 7 days. Also how long its idempotency key is remembered.
     */
    public Builder keepFinished(Duration keepFinished) {
      this.keepFinished = keepFinished;
      return this;
    }

    /**
     * Whether removed jobs are first copied to {@code fencing_job_archive} (the row as JSON, with
     * its outbox messages); default false: they are deleted. The archive is never read or trimmed
     * by the library.
     */
    public Builder archive(boolean archive) {
      this.archive = archive;
      return this;
    }

    /** Jobs removed per round (one transaction), 1 to 10,000; default 1,000. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /**
     * The least time between two VACUUMs run by this instance's rounds, up to 24 h; default 10 s;
     * {@link Duration#ZERO} leaves vacuuming to autovacuum alone.
     */
    public Builder vacuumEvery(Duration vacuumEvery) {
      this.vacuumEvery = vacuumEvery;
      return this;
    }

    /** The clock that times VACUUMs, for tests. */
    Builder nanoClock(LongSupplier nanoClock) {
      this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
      return this;
    }

    /**
     * Returns the maintenance of the handle's schema.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public PostgresMaintenance build() {
      Validate.keepFinished("keepFinished", keepFinished);
      Validate.batchSize(batchSize);
      Validate.delay("vacuumEvery", vacuumEvery);
      return new PostgresMaintenance(this);
    }
  }
}
