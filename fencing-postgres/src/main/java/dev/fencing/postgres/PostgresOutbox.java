package dev.fencing.postgres;

import dev.fencing.FencedOutbox;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.PostgresComponent;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The PostgreSQL backend's front door for the outbox relay.
 *
 * <pre>{@code
 * queue.complete(lease, "{\"sent\": true}", List.of(new OutboxMessage("mail", "user-7", body)));
 * FencedOutbox outbox = PostgresOutbox.builder(dataSource).schema("jobs").build();
 * outbox.relay("mail", mailReceiver, 100); // from your scheduler
 * }</pre>
 *
 * <p>Messages live in {@code fencing_outbox}, in the same schema as the job table ({@link
 * PostgresFencing#schemaSql()} creates both). {@link dev.fencing.FencedQueue#complete(
 * dev.fencing.Lease, String, java.util.List)} writes them in the transaction of its
 * compare-and-set, only if it matched. The relay sends each at least once, at the epoch of the
 * commit, and keeps the row with the outcome once sent.
 */
public final class PostgresOutbox {

  /** Unused by the outbox; a valid value for the shared settings. */
  private static final int UNUSED_MAX_ATTEMPTS = 5;

  private PostgresOutbox() {}

  /**
   * Starts configuring the relay on {@code dataSource}.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /** Configures a PostgreSQL {@link FencedOutbox}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = PostgresFencing.DEFAULT_SCHEMA;
    private boolean install = true;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * The schema the outbox lives in, the queue's: a plain identifier; default {@value
     * PostgresFencing#DEFAULT_SCHEMA}.
     */
    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    /** Whether {@link #build()} installs the schema (idempotently); default true. */
    public Builder install(boolean install) {
      this.install = install;
      return this;
    }

    /**
     * Returns the relay, after installing the schema if asked to.
     *
     * @throws IllegalArgumentException if the schema is not a plain identifier; nothing is written
     */
    public FencedOutbox build() {
      // No transient retries: a resend is the relay's own recovery, from the caller's next call.
      Config config = new Config(schema, UNUSED_MAX_ATTEMPTS, 0, Duration.ZERO);
      PostgresComponent graph = PostgresComponent.create(dataSource, config);
      if (install) {
        graph.schemaSetup().install();
      }
      return graph.outbox();
    }
  }
}
