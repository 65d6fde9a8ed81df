package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * One short run of {@link HandlerThreadsBenchmark}, to prove it runs. Nothing here asserts a time.
 */
class HandlerThreadsBenchmarkSmokeTest {

  @Test
  void theQuickFormRunsAndReportsEveryRow() throws Exception {
    Path out = Path.of("target", "bench", "HANDLER-THREADS-smoke.md");
    HandlerThreadsBenchmark.main(new String[] {"--quick", "--out", out.toString()});
    String report = Files.readString(out);
    assertThat(report)
        .startsWith(HandlerThreadsBenchmark.TITLE)
        .contains("| sleep 50 ms | 16 |")
        .contains("| compute | 2 |");
  }
}
