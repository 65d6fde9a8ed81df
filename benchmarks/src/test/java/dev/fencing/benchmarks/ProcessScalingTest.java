package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.db.PostgresFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A short process-scaling run, to prove the rows and their costs per job come out. No timings. */
class ProcessScalingTest {

  @Test
  void aShortRunReportsCostsPerJob() throws Exception {
    PostgresFixture.Database db = BenchDatabase.database();
    ProcessScaling.Row row = ProcessScaling.run(db, 2, 1, 10, 800, 300);

    assertThat(row.completed()).isPositive();
    assertThat(row.claimStatements()).isPositive();
    assertThat(row.commitStatements()).isPositive();
    assertThat(row.claimed()).isGreaterThanOrEqualTo(row.claimStatements() - row.emptyClaims());
    assertThat(row.workerCpuNanos()).isPositive();
    assertThat(row.pg().samples()).isPositive();
    String table = Report.processRows(List.of(row));
    assertThat(table).contains("| 2 | 1 |").contains("| claim / job |");
  }

  @Test
  void rowsAreProcessesTimesThreads() {
    assertThat(ProcessScalingMain.configs("1x4, 4x1"))
        .containsExactly(new int[] {1, 4}, new int[] {4, 1});
    assertThatThrownBy(() -> ProcessScalingMain.configs("4"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'4'");
  }
}
