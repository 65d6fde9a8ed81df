package dev.fencing.postgres;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobCodec;
import dev.fencing.JobConsumer;
import dev.fencing.JobProducer;
import dev.fencing.QueueOperator;
import dev.fencing.ResourceOwnership;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.EngineKind;
import dev.fencing.postgres.internal.Installer;
import dev.fencing.postgres.internal.PostgresComponent;
import dev.fencing.spi.ScheduleStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL backend's one front door: the queue, receivers, resource ownership, the outbox
 * relay, recurring schedules' marks, maintenance and the operators' admin, all in one schema, on
 * one data source, with one retry policy.
 *
 * <pre>{@code
 * PostgresFencing fencing = PostgresFencing.builder(dataSource).schema("jobs").build();
 * FencedQueue queue = fencing.queue();
 * FencedReceiver ledger = fencing.receiver("ledger");
 * Maintenance maintenance = fencing.maintenance().keepFinished(Duration.ofDays(7)).build();
 * }</pre>
 *
 * <p>Claims bump the job's epoch and set the lease from the database clock; complete, fail, renew
 * and release are compare-and-sets on owner and epoch. Transient failures (a dropped connection, a
 * serialization failure, a deadlock, a server shutting down, too many connections, a write refused
 * as read-only because the connection reaches a standby or a demoted primary: SQLSTATE class 08,
 * 40001, 40P01, 57P01-57P03, 53300, 25006; a pool that could not hand out a connection in time, a
 * {@code SQLTransientConnectionException}) are retried by every part alike ({@link
 * Builder#transientRetries}, {@link Builder#retryWait}); a retried commit whose first try landed is
 * accepted as a repeat. A connection refused as read-only is aborted, so a pool drops it and the
 * retry connects afresh: with a multi-host URL ({@code targetServerType=primary}), to the new
 * primary; put {@link PrimaryWaitingDataSource} under the pool, so that it connects as soon as
 * there is one (see docs/HA.md).
 *
 * <p>No failure of the driver or of jOOQ escapes a method of anything this handle gives: the
 * database unreachable or refusing after the retries is a {@link StoreUnavailableException}, a
 * schema without the tables a {@link SchemaNotInstalledException}, a write whose outcome cannot be
 * known and cannot be retried safely a {@link dev.fencing.OutcomeUnknownException}; the driver's
 * failure is the cause, and the message names the schema and what failed.
 *
 * <p>The data source is the caller's. The one thing the handle holds besides, the connection and
 * daemon thread that listen for new work (see {@link Builder#notifications} and {@link
 * Builder#listenerDataSource}), goes back by itself {@link Builder#listenerLinger} after the last
 * wait, or at once at {@link #close()}: close the handle before the pool, so that no connection of
 * it outlives the pool. Immutable and safe for concurrent use.
 *
 * @since 0.1
 */
public final class PostgresFencing implements AutoCloseable {

  /** The schema used when none is given. */
  public static final String DEFAULT_SCHEMA = "fencing";

  private final SchemaGate gate;
  private final FencedQueue queue;
  private final ResourceOwnership ownership;
  private final FencedOutbox outbox;
  private final ScheduleStore schedules;

  private PostgresFencing(SchemaGate gate, JobCodec codec) {
    this.gate = gate;
    this.queue = new GatedParts.Queue(gate, codec);
    this.ownership = new GatedParts.Owners(gate, gate.graph().ownership());
    this.outbox = new GatedParts.Outbox(gate, gate.graph().outbox());
    this.schedules = new GatedParts.Schedules(gate);
  }

  /**
   * Starts configuring the backend on {@code dataSource}. Bring a pool (HikariCP, say) for
   * production, with a connection timeout: it bounds how long a call waits for an unreachable
   * database (each try; see {@link Builder#transientRetries}).
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Returns every migration script this jar ships, in version order, as one text: the whole schema
   * (jobs of both engines, resources, outbox, receipts, schedules, and its record of engine and
   * versions) for a schema that has none. It creates its objects unqualified: run it with {@code
   * search_path} set to your schema. To bring an existing schema up, run only the scripts of {@link
   * #migrations()} it lacks.
   */
  public static String schemaSql() {
    return Installer.schemaSql();
  }

  /**
   * Returns the migration scripts this jar ships, in version order, for teams that run their own
   * migrations (with Flyway: {@code locations("classpath:META-INF/fencing/postgres/migrations")};
   * README, "Upgrading"). {@link Builder#install install(true)}, the default, applies those a
   * schema lacks by itself.
   */
  public static List<SchemaMigration> migrations() {
    return Installer.migrations().stream()
        .map(m -> new SchemaMigration(m.version(), m.description(), m.resource(), m.sql()))
        .toList();
  }

  /**
   * Reads what the schema records of itself (its version, the oldest version whose library may run
   * on it, its engine) and says whether this library may run on it. Never writes, never refused.
   *
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  public SchemaStatus schemaStatus() {
    SchemaGate.Status s = gate.status();
    return new SchemaStatus(
        schema(),
        s.state().version(),
        s.state().compatibleFrom(),
        s.state().tables(),
        s.state().engine().map(Engine::of),
        Installer.latest(),
        s.refusal());
  }

  /**
   * Returns the schema version this library needs: its newest migration script's. It also runs on a
   * newer schema whose newest script still declares itself compatible with this version (docs
   * /UPGRADING.md).
   */
  public static int schemaVersion() {
    return Installer.latest();
  }

  /**
   * Returns what the server says now about synchronous replication: its {@code
   * synchronous_standby_names} and whether a synchronous standby is attached and streaming ({@code
   * pg_stat_replication.sync_state}), or {@link Replication.Standby#UNKNOWN} when the role may not
   * see that (grant {@code pg_read_all_stats}). Never waits for a standby.
   *
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  public Replication replication() {
    return gate.graph().replication().probe();
  }

  /** Returns the schema every part of this handle uses. */
  public String schema() {
    return gate.schema();
  }

  /**
   * Returns the job queue in all its roles; the same instance on every call. Hand a part of your
   * application only the role it needs: {@link #producer()}, {@link #consumer()} or {@link
   * #operator()}.
   */
  public FencedQueue queue() {
    return queue;
  }

  /**
   * Returns the producer's role of {@link #queue()}: enqueue (with options, under keys), cancel and
   * find a job.
   *
   * @since 0.1
   */
  public JobProducer producer() {
    return queue;
  }

  /**
   * Returns the worker's role of {@link #queue()}: claim, renew, complete, fail and release, as
   * {@code FencedWorkers} needs it.
   *
   * @since 0.1
   */
  public JobConsumer consumer() {
    return queue;
  }

  /**
   * Returns the operator's role of {@link #queue()}: depth, limits and the jobs waiting for them.
   * For a job's history, requeue and purge see {@link #admin()}.
   *
   * @since 0.1
   */
  public QueueOperator operator() {
    return queue;
  }

  /**
   * Returns the receiver named {@code name}, which keeps the newest epoch per key in {@code
   * fencing_receipt}. Receivers with different names share the table but not their keys.
   *
   * <p>Payloads are stored as {@code jsonb}, so {@link FencedReceiver#newest} returns them in
   * PostgreSQL's normalised form (object keys sorted and deduplicated, whitespace changed). A
   * payload that {@code jsonb} refuses raises {@link IllegalArgumentException} naming {@code
   * payload} and the server's reason, at once and without retrying; nothing is written.
   *
   * @param name a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @throws IllegalArgumentException if it is not
   */
  public FencedReceiver receiver(String name) {
    return new GatedParts.Receiver(gate, gate.graph().receivers().named(name));
  }

  /**
   * Returns resource ownership: one row of {@code fencing_resource} per resource, whose epoch one
   * statement bumps at each acquisition, only if the previous lease ran out on the database clock;
   * the row is never deleted, so a resource's epoch only grows. An acquire whose first try
   * committed but whose reply was lost returns that very acquisition; a renewal that cannot reach
   * the database after the retries reports the ownership {@link
   * dev.fencing.OwnershipRenewal.Why#UNREACHABLE lost}. {@link ResourceOwnership#close()} leaves
   * the data source open. The same instance on every call.
   */
  public ResourceOwnership ownership() {
    return ownership;
  }

  /**
   * Returns the relay of the outbox, whose messages {@link FencedQueue#complete(dev.fencing.Lease,
   * String, java.util.List)} writes in the transaction of its compare-and-set, only if it matched.
   * The relay sends each at least once, at the epoch of the commit, and keeps the row with the
   * outcome once sent. The same instance on every call.
   */
  public FencedOutbox outbox() {
    return outbox;
  }

  /**
   * Returns the store of recurring schedules (fencing-schedule's {@code FencedScheduler} takes it):
   * one row of {@code fencing_schedule} per schedule with the newest revision of its definition and
   * its high-water mark. An advance moves the mark by a compare-and-set and enqueues the slots'
   * jobs under their keys on this handle's engine, in one statement, so a scheduler frozen mid-call
   * holds no lock others wait for (with a data source in autocommit mode, the default). The same
   * instance on every call.
   */
  public ScheduleStore schedules() {
    return schedules;
  }

  /**
   * Starts configuring retention and storage upkeep of this schema's jobs (see {@link
   * PostgresMaintenance}).
   */
  public PostgresMaintenance.Builder maintenance() {
    return new PostgresMaintenance.Builder(() -> gate.engineParts().retention());
  }

  /**
   * Returns the operators' view: list queues, show a job with its epoch history, requeue or fail a
   * job, purge old finished jobs, on the tables of the engine the schema records.
   *
   * @throws IllegalStateException if the builder named an engine other than the one the schema
   *     records
   * @throws SchemaNotInstalledException if the schema has no fencing tables or older ones, saying
   *     how to install them
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  public PostgresAdmin admin() {
    var admin = gate.engineParts().admin();
    admin.checkInstalled();
    return admin;
  }

  /**
   * Gives back the listening connection (after UNLISTEN) and ends its thread, waiting for both;
   * idempotent. Everything else stays usable, since every statement takes its connection from the
   * data source and returns it: after close, {@link FencedQueue#awaitWork} no longer listens and
   * sleeps its timeout, as with {@link Builder#notifications} off, so workers still running poll.
   * The data source is left open.
   */
  @Override
  public void close() {
    gate.close();
  }

  /**
   * Returns the engine this handle's queues run on: the one the schema records, else the one the
   * builder named, else {@link Engine#APPEND_ONLY}. Reads the schema's record if no call has yet (a
   * handle built with {@code install(false)} reads it at its first use).
   *
   * @throws IllegalStateException if the builder named an engine other than the one the schema
   *     records
   * @throws StoreUnavailableException if the record could not be read
   */
  public Engine engine() {
    return Engine.of(gate.engine());
  }

  @Override
  public String toString() {
    return "PostgresFencing[schema=" + gate.schema() + ", engine=" + gate.engineIfRead() + "]";
  }

  /**
   * How the queue stores its jobs (docs/ENGINE.md). Both keep every rule of {@link FencedQueue}: a
   * token per job that only goes up, a compare-and-set on owner and epoch for every write of a
   * lease, oldest ready work first, attempts, retries, the outbox.
   */
  public enum Engine {
    /**
     * One row per job ({@code fencing_job}), updated by its claim, its renewals and its commit.
     * Every feature of this handle works on it as on the other. Pick it when your own queries or
     * tools read {@code fencing_job}, or for a queue of few, long jobs, where its one table is the
     * simpler thing to look at; it costs about 1.5 times the CPU per job of {@link #APPEND_ONLY} on
     * a busy queue of short jobs (docs/BENCHMARKS.md).
     */
    UPDATE_IN_PLACE,
    /**
     * Jobs inserted once and never updated; a claim appends one row per batch (which carries the
     * lease) and one hand-out per job; a commit appends the job's end. Fewer dead rows and less
     * index upkeep per job, so more jobs a second on the same server. Idempotency keys, schedules'
     * slot advances, retention, archive and the operators' {@link PostgresFencing#admin()} work on
     * it as on the other. The default: what a schema that records no engine gets.
     */
    APPEND_ONLY;

    /** The engine inside the backend; with {@link #of}, the one mapping between the two. */
    EngineKind kind() {
      return switch (this) {
        case UPDATE_IN_PLACE -> EngineKind.UPDATE_IN_PLACE;
        case APPEND_ONLY -> EngineKind.APPEND_ONLY;
      };
    }

    /** The engine {@code kind} is inside the backend. */
    static Engine of(EngineKind kind) {
      return switch (kind) {
        case UPDATE_IN_PLACE -> UPDATE_IN_PLACE;
        case APPEND_ONLY -> APPEND_ONLY;
      };
    }
  }

  /**
   * What a schema records of itself, and whether this library may run on it ({@link
   * #schemaStatus()}): for a deployment's health check, or before a rolling upgrade.
   *
   * @param schema the schema read
   * @param version the newest version it records, 0 when it records none
   * @param compatibleFrom the oldest schema version whose library may run on it, 0 when it records
   *     no version
   * @param tables whether it holds any fencing table (a schema from before versions holds tables at
   *     version 0)
   * @param engine the engine it records, if any
   * @param needed the version this library needs ({@link #schemaVersion()})
   * @param refusal why this library may not run on it, or null when it may (or when the schema
   *     holds no fencing tables at all: then it is not installed)
   */
  public record SchemaStatus(
      String schema,
      int version,
      int compatibleFrom,
      boolean tables,
      Optional<Engine> engine,
      int needed,
      @Nullable String refusal) {

    /** Whether this library may run on the schema as it is: installed, and not refused. */
    public boolean runnable() {
      return tables && refusal == null;
    }
  }

  /** Configures the backend; {@link #build()} checks every setting. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = DEFAULT_SCHEMA;
    private int maxAttempts = 5;
    private int transientRetries = 3;
    private Duration retryWait = Duration.ofMillis(100);
    private boolean install = true;
    private boolean notifications = true;
    private Duration listenerLinger = Config.DEFAULT_LINGER;
    private DataSource listenerDataSource;
    private boolean synchronousReplication;
    private @Nullable Engine engine;
    private JobCodec codec = JobCodec.discover();

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
      this.listenerDataSource = dataSource;
    }

    /**
     * The schema every table lives in: a plain identifier; default {@value #DEFAULT_SCHEMA}. The
     * one place it is named: everything the handle gives uses it.
     */
    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    /** How many claims a job gets before a failure is terminal, 1 to 1,000; default 5. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * How many times a statement is retried after a transient failure, 0 to 100; default 3. The
     * queue, the receivers, ownership, maintenance and admin all retry alike.
     */
    public Builder transientRetries(int transientRetries) {
      this.transientRetries = transientRetries;
      return this;
    }

    /** The pause between those retries, up to 24 h; default 100 ms. */
    public Builder retryWait(Duration retryWait) {
      this.retryWait = retryWait;
      return this;
    }

    /**
     * Whether {@link #build()} migrates the schema to {@link #schemaVersion()}; default true. It
     * applies the migration scripts the schema lacks ({@link #migrations()}), each whole in one
     * transaction, under an advisory lock, safe while workers of this version and the previous run
     * and from many processes at once; on a schema at that version it only reads the version. With
     * false it runs no script, and a schema at a version this library may not run on is refused
     * with {@link SchemaVersionException} (naming the version found and the one needed) at the
     * first call that reads the schema.
     */
    public Builder install(boolean install) {
      this.install = install;
      return this;
    }

    /**
     * Whether the queue signals new work with LISTEN/NOTIFY; default true. When on, enqueue (and
     * release, and fail without delay) notify the schema's channel in their transaction, and {@link
     * FencedQueue#awaitWork} listens: an idle worker wakes within milliseconds of an enqueue. The
     * listening takes one connection from the data source, held while anyone waits (see {@link
     * #listenerLinger}); count it when sizing a pool. PostgreSQL serialises the commits of
     * notifying transactions, which costs enqueue throughput under heavy concurrent enqueueing (see
     * docs/BENCHMARKS.md). When off, nothing is notified and {@code awaitWork} sleeps its timeout,
     * so workers poll.
     *
     * <p>LISTEN needs a session: behind a pooler in transaction mode (PgBouncer's {@code pool_mode
     * = transaction}) give the listening connection one with {@link #listenerDataSource}, or turn
     * notifications off (docs/HA.md).
     */
    public Builder notifications(boolean notifications) {
      this.notifications = notifications;
      return this;
    }

    /**
     * Where the listening connection of {@link #notifications} comes from; default the data source
     * of {@link PostgresFencing#builder}, which is right for a direct connection and for a pooler
     * in session mode. Behind a pooler in transaction mode (PgBouncer's {@code pool_mode =
     * transaction}) LISTEN does not hold: the pooler hands the server connection that ran it to
     * other clients, so wake-ups never arrive (workers still get their jobs, at their {@code
     * awaitWork} timeouts) and that server connection's notifications land in whichever pooled
     * connection uses it next, where the driver keeps them. Give a data source that reaches
     * PostgreSQL directly (or through a pooler in session mode) for this one connection; every
     * statement of the queue still goes through the data source of {@link PostgresFencing#builder}.
     * Unused when notifications are off.
     *
     * @throws NullPointerException if {@code listenerDataSource} is null
     */
    public Builder listenerDataSource(DataSource listenerDataSource) {
      this.listenerDataSource = Objects.requireNonNull(listenerDataSource, "listenerDataSource");
      return this;
    }

    /**
     * How long the listening connection and its thread stay after the last {@link
     * FencedQueue#awaitWork} returned, up to 24 h; default 30 s. Then the connection goes back to
     * the data source and the thread ends, so a queue no longer waited on holds neither; the next
     * wait takes them again.
     */
    public Builder listenerLinger(Duration listenerLinger) {
      this.listenerLinger = listenerLinger;
      return this;
    }

    /**
     * Whether every transaction waits for a synchronous standby; default false. When on, each call
     * runs in one transaction with {@code synchronous_commit} forced to {@code on} for that
     * transaction alone (a pooled connection keeps its own setting) and with a WAL record, so that
     * its commit waits until the synchronous standby holds all WAL up to it: what a call returns, a
     * read included, is on the standby. A commit whose wait was cancelled (PostgreSQL answers it
     * with a WARNING: "already committed locally, but might not have been replicated") is an
     * unknown outcome, never a success: an enqueue throws {@link
     * dev.fencing.OutcomeUnknownException}, every other write {@link StoreUnavailableException}
     * (committing again with the same lease, or enqueueing again with the same key, is safe). Which
     * standbys count is the server's {@code synchronous_standby_names} (Patroni's {@code
     * synchronous_mode} sets it); with none attached, writes wait. {@link #build()} logs a warning
     * when it finds none attached; see {@link PostgresFencing#replication()}.
     */
    public Builder synchronousReplication(boolean synchronousReplication) {
      this.synchronousReplication = synchronousReplication;
      return this;
    }

    /**
     * The codec the queue's typed {@code enqueue} methods encode payloads with and {@code result}
     * decodes results with (see {@link dev.fencing.JobType}); default {@link JobCodec#discover()}:
     * fencing-jackson's when it is on the class or module path, else JSON text only. Workers take
     * theirs from {@code FencedWorkers.Builder#codec}.
     *
     * @throws NullPointerException if {@code codec} is null
     * @since 0.1
     */
    public Builder codec(JobCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * How the queue stores its jobs. Both engines' tables are installed in every schema, and the
     * schema records one engine (table {@code fencing_schema}): the first install that finds none
     * records this one, or, in a schema installed before engines were recorded, the engine whose
     * tables hold jobs. Without this call the handle takes the engine the schema records ({@link
     * Engine#APPEND_ONLY} when it records none); with it, {@link #build()} refuses a schema that
     * records the other, so a worker never claims from tables no producer fills. See docs/ENGINE.md
     * for what each costs.
     *
     * @throws NullPointerException if {@code engine} is null
     */
    public Builder engine(Engine engine) {
      this.engine = Objects.requireNonNull(engine, "engine");
      return this;
    }

    /**
     * Returns the handle, after installing the schema if asked to, on the engine the schema records
     * (see {@link #engine}). With {@code install(false)} it touches no database, so it can be built
     * while the database is down: the queue, the schedules, maintenance and admin read the schema's
     * record at their first call, and a mismatched engine is refused there.
     *
     * @throws IllegalArgumentException naming the first setting out of range; nothing is written
     * @throws SchemaVersionException if the schema is at a version this library may not run on:
     *     with {@code install(true)}, a newer schema no longer compatible with it; with {@code
     *     install(false)}, also an older one (at the first call of the queue, the schedules,
     *     maintenance or admin, and at every one after it)
     * @throws IllegalStateException if {@link #engine} named an engine other than the one the
     *     schema records, saying which it records (with {@code install(false)}: at the first call
     *     of the queue, the schedules, maintenance or admin, and at every one after it)
     * @throws StoreUnavailableException if the schema could not be installed or read (the database
     *     could not be reached, or refused)
     */
    public PostgresFencing build() {
      return build(PostgresComponent::create);
    }

    /** As {@link #build()}, the handle's graph made by {@code graphs} (a test counts them). */
    PostgresFencing build(PostgresComponent.Factory graphs) {
      Config config =
          new Config(
              schema,
              maxAttempts,
              transientRetries,
              retryWait,
              notifications,
              listenerLinger,
              synchronousReplication,
              engine == null ? null : engine.kind());
      PostgresComponent graph = graphs.create(dataSource, listenerDataSource, config);
      return new PostgresFencing(SchemaGate.open(graph, config, install), codec);
    }
  }
}
