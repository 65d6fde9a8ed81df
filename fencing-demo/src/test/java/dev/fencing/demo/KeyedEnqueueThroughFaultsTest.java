package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A producer process enqueues 50,000 keyed jobs, retrying every failed call, while the test
 * terminates its backends again and again and restarts PostgreSQL twice: the table ends with
 * exactly 50,000 jobs, one per key, and the ids the producer was given are the ids in the table.
 */
@FencingDatabase
class KeyedEnqueueThroughFaultsTest {

  private static final int TOTAL = Integer.getInteger("fencing.keys.total", 50_000);
  private static final int BATCH = 100;
  private static final String QUEUE = "keyed";

  @Test
  void everyKeyIsEnqueuedExactlyOnceThroughTerminationsAndRestarts(TestSchema schema)
      throws Exception {
    DataSource db = schema.dataSource();
    PostgresFencing fencing = PostgresFencing.builder(db).schema(schema.name()).build();
    // the producer's handle names no engine either: both run on the one the schema records
    String jobTable =
        fencing.engine() == PostgresFencing.Engine.APPEND_ONLY
            ? "fencing_append_job"
            : "fencing_job";
    Path logs = Files.createDirectories(Path.of("target", "keyed-faults", schema.name()));
    StringBuilder why = new StringBuilder();
    Optional<PostgresRestarter> restarter =
        PostgresRestarter.of(schema.database(), logs.resolve("postgres.log"), why);
    if (restarter.isEmpty()) {
      System.out.println("KeyedEnqueueThroughFaultsTest: no PostgreSQL restarts: " + why);
    }
    Random random = new Random(7);
    int terminated = 0;
    int restarts = 0;
    try (JavaProcess producer =
        JavaProcess.start(
            "keyed-producer",
            KeyedProducerMain.class,
            List.of(
                schema.database().jdbcUrl(),
                schema.database().user(),
                schema.database().password(),
                schema.name(),
                QUEUE,
                Integer.toString(TOTAL),
                Integer.toString(BATCH)))) {
      long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
      int[] restartAt = {TOTAL / 3, TOTAL * 2 / 3};
      while (producer.isAlive() && !done(producer) && System.nanoTime() < deadline) {
        Thread.sleep(50 + random.nextInt(250));
        int progress = progress(producer);
        if (restarter.isPresent()
            && restarts < restartAt.length
            && progress >= restartAt[restarts]) {
          restarter.get().restart(Duration.ofMillis(300 + random.nextInt(700)));
          restarts++;
        } else {
          terminated += terminate(db);
        }
      }
      producer.await(0, l -> l.startsWith("done "), Duration.ofMinutes(2));
      String done =
          producer.lines().stream().filter(l -> l.startsWith("done ")).findFirst().orElseThrow();
      long failedCalls = producer.lines().stream().filter(l -> l.startsWith("failed ")).count();
      System.out.printf(
          "KeyedEnqueueThroughFaultsTest: %d jobs, %d backends terminated, %d restarts, %d failed"
              + " calls retried; producer: %s%n",
          TOTAL, terminated, restarts, failedCalls, done);

      assertThat(failedCalls).as("the faults reached the producer").isPositive();
      long[] table = table(db, schema.name(), jobTable);
      assertThat(table[0]).as("jobs in the table").isEqualTo(TOTAL);
      assertThat(table[1]).as("distinct keys").isEqualTo(TOTAL);
      assertThat(done).contains("idSum=" + table[2]);
      assertThat(done).contains("created=").contains("existed=");
    }
  }

  private static boolean done(JavaProcess p) {
    return p.lines().stream().anyMatch(l -> l.startsWith("done "));
  }

  private static int progress(JavaProcess p) {
    List<String> lines = p.lines();
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).startsWith("progress ")) {
        return Integer.parseInt(lines.get(i).substring("progress ".length()).trim());
      }
    }
    return 0;
  }

  private static int terminate(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                    + " FROM pg_stat_activity WHERE application_name = ?")) {
      s.setString(1, KeyedProducerMain.APPLICATION_NAME);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getInt(1);
      }
    }
  }

  /**
   * Rows, distinct keys, and the sum of ids, of the queue in {@code jobTable}: each engine keeps a
   * job's key on its job row ({@code fencing_job} or {@code fencing_append_job}), which the API
   * does not show.
   */
  private static long[] table(DataSource db, String schema, String jobTable) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*), count(DISTINCT idempotency_key), coalesce(sum(id), 0) FROM \""
                    + schema
                    + "\"."
                    + jobTable
                    + " WHERE queue = ?")) {
      s.setString(1, QUEUE);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return new long[] {r.getLong(1), r.getLong(2), r.getLong(3)};
      }
    }
  }
}
