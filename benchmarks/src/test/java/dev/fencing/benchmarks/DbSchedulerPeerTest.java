package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import org.junit.jupiter.api.Test;

class DbSchedulerPeerTest {

  @Test
  void runsEveryTaskThroughDbScheduler() {
    PostgresFixture.Database db = BenchDatabase.database();
    String schema = "dbscheduler_peer_test";
    try (HikariDataSource pool = BenchDatabase.pool(db, 6)) {
      DbSchedulerPeer.Result result = DbSchedulerPeer.run(pool, schema, 2, 200);

      assertThat(result.threads()).isEqualTo(2);
      assertThat(result.tasks()).isEqualTo(200);
      assertThat(result.seconds()).isPositive();
      assertThat(result.jobsPerSecond()).isPositive();
    } finally {
      db.dropSchema(schema);
    }
  }

  @Test
  void refusesASchemaThatIsNotAPlainIdentifier() {
    assertThatThrownBy(() -> DbSchedulerPeer.run(null, "x; drop table y", 2, 200))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema")
        .hasMessageContaining("x; drop table y");
  }
}
