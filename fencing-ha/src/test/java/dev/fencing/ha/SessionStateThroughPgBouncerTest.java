package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * What breaks through PgBouncer 1.18 in transaction mode, where clients take turns on server
 * connections (here one): what lives in a server session. Named prepared statements: by default
 * pgjdbc turns a statement it ran five times on one connection into one, so two clients (two pools
 * of one connection, as two worker processes) collide at the second one's fifth delivery, unless
 * {@code prepareThreshold=0}. And LISTEN: the client that ran it hears nothing, and the server
 * connection's notifications go to whoever uses it next. See docs/HA.md.
 */
@FencingDatabase
class SessionStateThroughPgBouncerTest {

  /** pgjdbc's default {@code prepareThreshold}. */
  private static final int THRESHOLD = 5;

  private static PgBouncerProcess bouncer;

  @BeforeAll
  static void start() {
    bouncer = PgBouncerProcess.start(PostgresFixture.get(), 1);
  }

  @AfterAll
  static void stop() {
    bouncer.close();
  }

  @Test
  void withTheDriversDefaultTheSecondClientsFifthDeliveryCollides(TestSchema schema) {
    FencedReceiver first = receiver(schema, "");
    FencedReceiver second = receiver(schema, "");
    for (int i = 1; i <= THRESHOLD; i++) {
      first.deliver("a", Epoch.of(i), "{}");
    }
    for (int i = 1; i < THRESHOLD; i++) {
      second.deliver("b", Epoch.of(i), "{}");
    }
    assertThatThrownBy(() -> second.deliver("b", Epoch.of(THRESHOLD), "{}"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasRootCauseInstanceOf(SQLException.class)
        .rootCause()
        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42P05"))
        .hasMessageContaining("already exists");
  }

  @Test
  void withPrepareThresholdZeroEveryDeliveryLands(TestSchema schema) {
    FencedReceiver first = receiver(schema, PgBouncerProcess.PGJDBC_PARAMETERS);
    FencedReceiver second = receiver(schema, PgBouncerProcess.PGJDBC_PARAMETERS);
    for (int i = 1; i <= 2 * THRESHOLD; i++) {
      assertThat(first.deliver("a", Epoch.of(i), "{}"))
          .isEqualTo(new FencedOutcome.Accepted("a", Epoch.of(i), false));
      assertThat(second.deliver("b", Epoch.of(i), "{}"))
          .isEqualTo(new FencedOutcome.Accepted("b", Epoch.of(i), false));
    }
    assertThat(second.newest("b").orElseThrow().epoch()).isEqualTo(Epoch.of(2 * THRESHOLD));
  }

  @Test
  void aListenerHearsNothingAndItsNotificationsGoToAnotherClient(TestSchema schema)
      throws SQLException {
    DataSource through = bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS).dataSource();
    String channel = "c_" + schema.name();
    try (Connection listener = through.getConnection();
        Connection other = through.getConnection()) {
      execute(listener, "LISTEN " + channel);
      for (int i = 0; i < 3; i++) {
        execute(other, "NOTIFY " + channel);
      }
      assertThat(listener.unwrap(PGConnection.class).getNotifications(500)).isEmpty();
      assertThat(other.unwrap(PGConnection.class).getNotifications()).hasSize(3);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * A receiver on a pool of its own, of one connection to PgBouncer, in {@code schema}, installed
   * directly.
   */
  private static FencedReceiver receiver(TestSchema schema, String parameters) {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    return PostgresFencing.builder(bouncer.database(parameters).pooledDataSource(1))
        .schema(schema.name())
        .install(false)
        .build()
        .receiver("r");
  }
}
