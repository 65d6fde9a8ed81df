package dev.fencing.demo;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.Table;
import dev.fencing.testkit.process.ZombieScenario;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the seed's two orderings end to end: a zombie JVM frozen with SIGSTOP, its lease expiring on
 * the database clock, a second JVM reclaiming the job. Prints the timelines and the table, and
 * exits 1 if the table is not the one the seed expects.
 *
 * <p>PostgreSQL: {@code FENCING_JDBC_URL} if set, else an embedded server.
 */
public final class ZombieDemo {

  /** The schema the demo drops and recreates, as the seed's tests do. */
  public static final String SCHEMA = "fencing_demo";

  private ZombieDemo() {}

  public static void main(String[] args) {
    PrintStream out = System.out;
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    out.println("PostgreSQL: " + db.source() + " (" + db.jdbcUrl() + "), schema " + SCHEMA);
    boolean asExpected = run(PostgresBackend.class, db, out);
    System.exit(asExpected ? 0 : 1);
  }

  /**
   * Runs both orderings with {@code backend}, prints them, and returns whether they are as
   * expected.
   */
  static boolean run(
      Class<? extends FencingBackend> backend, PostgresFixture.Database db, PrintStream out) {
    ZombieScenario scenario = new ZombieScenario(db, backend, SCHEMA, Duration.ofMillis(1500));
    List<ZombieScenario.Row> rows = new ArrayList<>();
    for (ZombieScenario.Ordering ordering : ZombieScenario.Ordering.values()) {
      out.println();
      out.println("== " + ordering.description());
      ZombieScenario.Report report = scenario.run(ordering);
      report.timeline().forEach(line -> out.println("  " + line));
      rows.add(report.row());
    }
    out.println();
    out.print(Table.render(rows));
    boolean asExpected =
        rows.stream().allMatch(r -> r.equals(ZombieScenario.expected(r.ordering())));
    out.println();
    out.println(
        asExpected
            ? "Both orderings end as the seed's table says: the zombie's late work counted for nothing."
            : "NOT as expected: the zombie's late work leaked through.");
    return asExpected;
  }
}
