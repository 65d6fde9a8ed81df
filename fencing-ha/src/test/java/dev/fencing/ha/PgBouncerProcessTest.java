package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The PgBouncer fixture: what it needs, that it pools by transaction, and that it ends. */
class PgBouncerProcessTest {

  @Test
  void aMissingBinaryFailsNamingTheDebianPackage() {
    assertThatThrownBy(
            () -> PgBouncerProcess.binary(Path.of("/nonexistent/pgbouncer"), "/nonexistent"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("PgBouncer is not installed")
        .hasMessageContaining("apt-get install -y pgbouncer");
  }

  @Test
  void thisMachineHasIt() {
    assertThatCode(() -> PgBouncerProcess.binary(PgBouncerProcess.DEBIAN_BINARY, ""))
        .doesNotThrowAnyException();
  }

  @Test
  void badArgumentsNameTheParameter() {
    PostgresFixture.Database twoHosts =
        new PostgresFixture.Database(
            "jdbc:postgresql://127.0.0.1:1,127.0.0.1:2/postgres", "u", "p", "test");
    assertThatThrownBy(() -> PgBouncerProcess.start(twoHosts, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("server must be one host")
        .hasMessageContaining("127.0.0.1:1,127.0.0.1:2");
    assertThatThrownBy(() -> PgBouncerProcess.start(twoHosts, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("serverConnections")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> PgBouncerProcess.start(twoHosts, 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("serverLoginRetry")
        .hasMessageContaining("PT0S");
  }

  /**
   * With one server connection, two clients that both stay connected run on the same backend, one
   * transaction after the other: in session mode the second would wait for the first to log out.
   */
  @Test
  void clientsTakeTurnsOnOneServerConnectionAndCloseEndsTheProcess() throws Exception {
    PgBouncerProcess bouncer;
    try (PgBouncerProcess started = PgBouncerProcess.start(PostgresFixture.get(), 1)) {
      bouncer = started;
      DataSource through = started.database("prepareThreshold=0&socketTimeout=10").dataSource();
      try (Connection a = through.getConnection();
          Connection b = through.getConnection()) {
        int first = backend(a);
        assertThat(backend(b)).isEqualTo(first);
        assertThat(backend(a)).isEqualTo(first);
      }
      assertThat(Files.readString(started.ini())).contains("pool_mode = transaction");
    }
    assertThat(OsProcesses.awaitGone(List.of(bouncer.process()), Duration.ZERO)).isEmpty();
    assertThatThrownBy(() -> bouncer.database("").dataSource().getConnection().close())
        .isInstanceOf(SQLException.class);
  }

  private static int backend(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
