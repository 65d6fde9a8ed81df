package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The smoke form of {@link ScaleOutBenchmark}: 1 and 4 runtimes over 2 worker JVMs on a shallow
 * queue, the default engine, to prove every row runs and completes jobs. Nothing here asserts a
 * time.
 */
class ScaleOutBenchmarkSmokeTest {

  private static final Pattern ROW =
      Pattern.compile(
          "^\\| shallow \\| (\\d+) \\| (\\d+) \\| ([a-z -]+) \\| direct \\| ([0-9,]+) \\|",
          Pattern.MULTILINE);

  @Test
  void theQuickFormReportsEveryRowWithJobsDone() throws Exception {
    Path out = Path.of("target", "bench", "SCALE-OUT-smoke.md");
    ScaleOutBenchmark.main(new String[] {"--quick", "--out", out.toString()});
    String report = Files.readString(out);

    assertThat(report)
        .startsWith(ScaleOutBenchmark.TITLE)
        .contains("Append-only (the default engine):");
    Matcher rows = ROW.matcher(report);
    int found = 0;
    while (rows.find()) {
      found++;
      assertThat(Long.parseLong(rows.group(4).replace(",", ""))).as(rows.group()).isPositive();
      assertThat(Integer.parseInt(rows.group(2)))
          .isEqualTo(Math.min(2, Integer.parseInt(rows.group(1))));
    }
    assertThat(found).as(report).isEqualTo(2);
  }

  @Test
  void aServerWithTooFewConnectionsForTheLargestRowIsRefusedBeforeAnyRowRuns() {
    assertThatThrownBy(
            () -> ScaleOutBenchmark.main(new String[] {"--quick", "--runtimes", "1,5000"}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("max_connections is ")
        .hasMessageContaining("the 5000-runtime row needs about 15020 connections");
  }
}
