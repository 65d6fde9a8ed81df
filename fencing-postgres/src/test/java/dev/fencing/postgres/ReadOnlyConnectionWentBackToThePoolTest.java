package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pooled connection that reaches a server taking no writes (a standby, or a primary that was
 * demoted, as a single-host URL does after a failover) failed every write with SQLSTATE 25006,
 * which was not transient, and went back into the pool to fail the next write too. Here the one
 * connection of a one-connection pool is made read-only ({@code default_transaction_read_only} for
 * its session): the write is retried as transient, and the connection is aborted so the pool drops
 * it and the retry gets a fresh one.
 */
@FencingDatabase
class ReadOnlyConnectionWentBackToThePoolTest {

  private static final Duration LEASE = Duration.ofMinutes(5);

  private HikariDataSource pool;
  private TestSchema schema;

  @BeforeEach
  void onePooledConnection(TestSchema schema) {
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setDataSource(schema.dataSource());
    config.setMaximumPoolSize(1);
    config.setPoolName("read-only");
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Test
  void aClaimRefusedAsReadOnlyIsRetriedOnAFreshConnection() throws SQLException {
    claimsThroughAReadOnlyConnection(false);
  }

  @Test
  void inSynchronousModeToo() throws SQLException {
    claimsThroughAReadOnlyConnection(true);
  }

  private void claimsThroughAReadOnlyConnection(boolean synchronous) throws SQLException {
    FencedQueue queue = queue(3, synchronous);
    queue.enqueue("q", "{}");
    makeThePooledConnectionReadOnly();

    assertThat(queue.claim("q", "w", LEASE)).isPresent();
    assertThat(readOnly()).as("the pool dropped the read-only connection").isEqualTo("off");
  }

  @Test
  void anEnqueueRefusedAsReadOnlyIsRetriedToo() throws SQLException {
    FencedQueue queue = queue(3, false);
    makeThePooledConnectionReadOnly();

    long id = queue.enqueue("q", "{}");

    assertThat(queue.find(id)).isPresent();
  }

  @Test
  void withoutRetriesItIsReportedAsTransientAndTheNextCallWorks() throws SQLException {
    FencedQueue queue = queue(0, false);
    queue.enqueue("q", "{}");
    makeThePooledConnectionReadOnly();

    Throwable refused = catchThrowable(() -> queue.claim("q", "w", LEASE));

    assertThat(refused)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("transient failures retried 0 times")
        .hasMessageContaining("read-only transaction");
    assertThat(queue.claim("q", "w", LEASE)).isPresent();
  }

  private FencedQueue queue(int transientRetries, boolean synchronous) {
    return PostgresFencing.builder(pool)
        .schema(schema.name())
        .transientRetries(transientRetries)
        .retryWait(Duration.ofMillis(10))
        .synchronousReplication(synchronous)
        .build()
        .queue();
  }

  /** A session setting the pool does not reset: the connection stays read-only when lent again. */
  private void makeThePooledConnectionReadOnly() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("set session default_transaction_read_only = on");
    }
    assertThat(readOnly()).isEqualTo("on");
  }

  private String readOnly() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("show default_transaction_read_only")) {
      r.next();
      return r.getString(1);
    }
  }
}
