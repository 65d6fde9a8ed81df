package dev.fencing.postgres;

import dev.fencing.CoordinationException;
import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.PostgresComponent;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The PostgreSQL backend's front door for {@link ResourceOwnership}.
 *
 * <pre>{@code
 * ResourceOwnership owners = PostgresOwnership.builder(dataSource).schema("jobs").build();
 * }</pre>
 *
 * <p>Each resource is one row of {@code fencing_resource}, in the same schema as the job table
 * ({@link PostgresFencing#schemaSql()} creates both). An acquisition bumps the row's epoch in one
 * statement, only if the previous lease ran out on the database clock; the row is never deleted, so
 * a resource's epoch only grows, across owners, client restarts and database restarts. Renew and
 * release are compare-and-sets on resource, owner and epoch.
 *
 * <p>Statements are retried after transient failures (a dropped connection, a serialization
 * failure). An acquire whose first try committed but whose reply was lost returns that very
 * acquisition; a renewal that cannot reach the database after the retries reports the ownership
 * {@link dev.fencing.OwnershipRenewal.Why#UNREACHABLE lost}. {@link ResourceOwnership#close()}
 * leaves the data source open: it is the caller's.
 */
public final class PostgresOwnership {

  /** Unused by ownership; a valid value for the shared settings. */
  private static final int UNUSED_MAX_ATTEMPTS = 5;

  private PostgresOwnership() {}

  /**
   * Starts configuring resource ownership on {@code dataSource}. Bring a pool (HikariCP, say) for
   * production, with a connection timeout: it bounds how long a call waits for an unreachable
   * database (each try; see {@link Builder#transientRetries}).
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /** Configures a PostgreSQL {@link ResourceOwnership}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = PostgresFencing.DEFAULT_SCHEMA;
    private int transientRetries = 3;
    private Duration retryWait = Duration.ofMillis(100);
    private boolean install = true;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * The schema the table lives in: a plain identifier; default {@value
     * PostgresFencing#DEFAULT_SCHEMA}, the queue's.
     */
    public Builder schema(String schema) {
      this.schema = schema;
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

    /**
     * Whether {@link #build()} installs the schema (idempotently; a schema installed before the
     * resource table existed gains it); default true.
     */
    public Builder install(boolean install) {
      this.install = install;
      return this;
    }

    /**
     * Returns resource ownership, after installing the schema if asked to.
     *
     * @throws IllegalArgumentException naming the first setting out of range; nothing is written
     * @throws CoordinationException if the schema could not be installed (the database could not be
     *     reached, or refused); it is tried once, within the data source's connection timeout
     */
    public ResourceOwnership build() {
      Config config = new Config(schema, UNUSED_MAX_ATTEMPTS, transientRetries, retryWait);
      PostgresComponent graph = PostgresComponent.create(dataSource, config);
      if (install) {
        graph.schemaSetup().installOrThrowCoordination();
      }
      return graph.ownership();
    }
  }
}
