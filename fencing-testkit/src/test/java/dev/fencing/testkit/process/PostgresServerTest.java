package dev.fencing.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The server a test owns: frozen, a statement hangs until the thaw; stopped and started, its data
 * stays.
 */
class PostgresServerTest {

  @Test
  void aFrozenServerHoldsItsStatementsUntilTheThawAndARestartKeepsItsData() throws Exception {
    try (PostgresServer server = PostgresServer.start()) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(server.jdbcUrl());
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("create table kept (v int); insert into kept values (7)");

        server.freeze();
        CompletableFuture<Integer> answer = CompletableFuture.supplyAsync(() -> one(c, "select 1"));
        assertThat(answer)
            .as("a statement to a frozen server")
            .failsWithin(1, TimeUnit.SECONDS)
            .withThrowableOfType(TimeoutException.class);
        server.thaw();
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(1);
      }

      server.stop();
      server.restart();
      try (Connection c = ds.getConnection()) {
        assertThat(one(c, "select v from kept")).isEqualTo(7);
      }
    }
  }

  private static int one(Connection c, String sql) {
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
