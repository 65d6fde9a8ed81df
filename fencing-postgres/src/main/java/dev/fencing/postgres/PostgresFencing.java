package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Installer;
import dev.fencing.postgres.internal.PostgresComponent;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The PostgreSQL backend's front door.
 *
 * <pre>{@code
 * FencedQueue queue = PostgresFencing.builder(dataSource).schema("jobs").build();
 * }</pre>
 *
 * <p>Claims bump the job's epoch and set the lease from the database clock; complete, fail, renew
 * and release are compare-and-sets on owner and epoch. Transient failures (a dropped connection, a
 * serialization failure) are retried; a retried commit whose first try landed is accepted as a
 * repeat.
 */
public final class PostgresFencing {

  /** The schema used when none is given. */
  public static final String DEFAULT_SCHEMA = "fencing";

  private PostgresFencing() {}

  /**
   * Starts configuring a queue on {@code dataSource}. Bring a pool (HikariCP, say) for production.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Returns the schema SQL this jar installs, for those who run their own migrations. It creates
   * its objects unqualified: run it with {@code search_path} set to your schema.
   */
  public static String schemaSql() {
    return Installer.schemaSql();
  }

  /** Configures a PostgreSQL {@link FencedQueue}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = DEFAULT_SCHEMA;
    private int maxAttempts = 5;
    private int transientRetries = 3;
    private Duration retryWait = Duration.ofMillis(100);
    private boolean install = true;
    private boolean notifications = true;
    private Duration listenerLinger = Config.DEFAULT_LINGER;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /** The schema the tables live in: a plain identifier; default {@value #DEFAULT_SCHEMA}. */
    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    /** How many claims a job gets before a failure is terminal, 1 to 1,000; default 5. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** How many times a statement is retried after a transient failure, 0 to 100; default 3. */
    public Builder transientRetries(int transientRetries) {
      this.transientRetries = transientRetries;
      return this;
    }

    /** The pause between those retries, up to 24 h; default 100 ms. */
    public Builder retryWait(Duration retryWait) {
      this.retryWait = retryWait;
      return this;
    }

    /** Whether {@link #build()} installs the schema (idempotently); default true. */
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
     */
    public Builder notifications(boolean notifications) {
      this.notifications = notifications;
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
     * Returns the queue, after installing the schema if asked to.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public FencedQueue build() {
      Config config =
          new Config(
              schema, maxAttempts, transientRetries, retryWait, notifications, listenerLinger);
      PostgresComponent graph = PostgresComponent.create(dataSource, config);
      if (install) {
        graph.schemaSetup().install();
      }
      return graph.queue();
    }
  }
}
