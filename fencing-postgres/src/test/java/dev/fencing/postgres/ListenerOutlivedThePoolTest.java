package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The listening connection used to stay out for its linger after the last wait, so an application
 * that closed its pool meanwhile had the pool close it under the listener (issue 32: a WARN from
 * HikariCP at every shutdown). {@link PostgresFencing#close()} gives it back at once.
 */
@FencingDatabase
class ListenerOutlivedThePoolTest {

  private HikariDataSource pool;
  private TestSchema schema;

  @BeforeEach
  void pool(TestSchema schema) {
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setDataSource(schema.dataSource());
    config.setMaximumPoolSize(2);
    config.setPoolName("listener-close");
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Test
  void closeGivesTheListeningConnectionBackBeforeItsLinger() throws Exception {
    PostgresFencing fencing =
        PostgresFencing.builder(pool)
            .schema(schema.name())
            .listenerLinger(Duration.ofHours(1))
            .build();
    FencedQueue queue = fencing.queue();
    // the first wait ends on the listener's first signal, sent once it listens
    assertThat(queue.awaitWork("q", Duration.ofSeconds(10))).isTrue();
    assertThat(listening()).isEqualTo(1);
    assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);

    fencing.close();

    assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    assertThat(listening()).isZero();
    fencing.close(); // idempotent

    // the rest still works, and a wait after close polls instead of listening again
    long id = queue.enqueue("q", "{}");
    assertThat(queue.find(id)).isPresent();
    long start = System.nanoTime();
    assertThat(queue.awaitWork("q", Duration.ofMillis(300))).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(250));
    assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    assertThat(listening()).isZero();
  }

  @Test
  void closeOfAHandleThatNeverListenedReturnsAtOnce() {
    PostgresFencing fencing = PostgresFencing.builder(pool).schema(schema.name()).build();
    long start = System.nanoTime();
    fencing.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
  }

  /** How many backends of this database are idle after a LISTEN on the schema's channel. */
  private int listening() throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select count(*) from pg_stat_activity where datname = current_database()"
                    + " and query = ? and pid <> pg_backend_pid()")) {
      s.setString(1, "LISTEN \"fencing_" + schema.name() + "\"");
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
