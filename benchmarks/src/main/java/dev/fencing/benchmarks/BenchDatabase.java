package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Where the benchmarks' PostgreSQL comes from ({@code FENCING_JDBC_URL}, else an embedded server),
 * connection pools, and fast seeding of deep queues.
 */
public final class BenchDatabase {

  private BenchDatabase() {}

  /** Returns the database: {@code FENCING_JDBC_URL} if set, else an embedded PostgreSQL. */
  public static PostgresFixture.Database database() {
    return PostgresFixture.urlOrEmbedded();
  }

  /** Returns a HikariCP pool of {@code size} connections, opened eagerly. */
  public static HikariDataSource pool(PostgresFixture.Database db, int size) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(db.dataSource());
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setPoolName("bench");
    return new HikariDataSource(config);
  }

  /** Drops and recreates {@code schema}, and installs the fencing job table in it. */
  public static void freshQueueSchema(PostgresFixture.Database db, String schema) {
    freshQueueSchema(db, schema, PostgresFencing.Engine.UPDATE_IN_PLACE);
  }

  /** Drops and reinstalls {@code schema}, recording {@code engine} as its engine. */
  public static void freshQueueSchema(
      PostgresFixture.Database db, String schema, PostgresFencing.Engine engine) {
    db.recreateSchema(schema);
    PostgresFencing.builder(db.dataSource()).schema(schema).engine(engine).build().queue();
  }

  /**
   * Adds {@code jobs} pending jobs with payload {@code {}} to {@code queue} in one statement, and
   * refreshes the planner's statistics.
   */
  public static void seed(DataSource ds, String schema, String queue, int jobs) {
    Validate.identifier("schema", schema);
    Validate.identifier("queue", queue);
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "insert into \""
                  + schema
                  + "\".fencing_job (queue, payload) select ?, '{}'::jsonb from"
                  + " generate_series(1, ?)")) {
        s.setString(1, queue);
        s.setInt(2, jobs);
        s.executeUpdate();
      }
      try (Statement s = c.createStatement()) {
        s.execute("analyze \"" + schema + "\".fencing_job");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("seeding " + schema + "." + queue + ": " + e, e);
    }
  }

  /** Returns how many jobs of {@code queue} are pending. */
  public static long pending(DataSource ds, String schema, String queue) {
    return count(ds, schema, queue, "pending");
  }

  private static long count(DataSource ds, String schema, String queue, String status) {
    try (Connection c = ds.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select count(*) from \""
                    + Validate.identifier("schema", schema)
                    + "\".fencing_job where queue = ? and status = ?")) {
      s.setString(1, queue);
      s.setString(2, status);
      try (var r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns "Machine: N cores, Java V, PostgreSQL V." and a line break, for a report's header. */
  public static String machine(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        java.sql.ResultSet rs = c.createStatement().executeQuery("select version()")) {
      rs.next();
      return String.format(
          java.util.Locale.ROOT,
          "Machine: %d cores, Java %s, %s.%n",
          Runtime.getRuntime().availableProcessors(),
          Runtime.version(),
          rs.getString(1).replaceAll(",.*", ""));
    }
  }
}
