package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.process.JavaProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The jOOQ inside fencing-postgres prints nothing of its own, on the oldest PostgreSQL the project
 * runs on: no logo, no tip of the day, and no "Version mismatch" warning, which jOOQ 3.21's
 * open-source dialect gives for PostgreSQL 15. It fails when {@code PostgresModule} stops setting
 * the relocated jOOQ's log threshold (the logo comes back on any version, the warning on 15).
 */
@ExtendWith(SharedPatroniCluster.class)
class JooqStaysQuietOnPostgres15Test {

  @Test
  void aFirstUseOnPostgres15PrintsNothingOfJooq(PatroniCluster cluster) {
    cluster.heal(Duration.ofSeconds(60));
    assertThat(Integer.parseInt(cluster.query(cluster.leader(), "show server_version_num")))
        .as("the server runs PostgreSQL 15")
        .isBetween(150000, 159999);
    String schema = "quiet_" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);

    try (JavaProcess first =
        JavaProcess.start(
            "first-use",
            // everything at INFO and above, as an application's default logging prints it
            List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info"),
            QuietOnPostgres15Main.class,
            List.of(cluster.jdbcUrl(), cluster.user(), cluster.password(), schema))) {
      assertThat(first.awaitExit(Duration.ofSeconds(60))).as(first.stderr()).isZero();
      String printed = String.join("\n", first.lines()) + "\n" + first.stderr();

      assertThat(printed)
          .contains("claimed at epoch 1: Accepted")
          .doesNotContain(
              "jOOQ", "@@@@", "Tip of the day", "want tips", "Version mismatch", "WARN");
    }
  }
}
