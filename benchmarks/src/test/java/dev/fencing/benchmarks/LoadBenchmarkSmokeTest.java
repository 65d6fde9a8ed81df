package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The short form of {@link LoadBenchmark}: the fixed rate from a cold start and again from the warm
 * table in a fresh JVM, to prove it runs end to end. Its numbers mean nothing; no time is asserted.
 */
class LoadBenchmarkSmokeTest {

  @Test
  void theQuickFormRunsTheFixedRateColdAndWarmInJvmsOfTheirOwn() throws Exception {
    Path out = Path.of("target", "bench", "LOAD-smoke.md");
    LoadBenchmark.main(new String[] {"--quick", "--out", out.toString()});
    String report = Files.readString(out);
    assertThat(report)
        .contains(LoadBenchmark.TITLE)
        .contains("### rate, cold")
        .contains("### rate, warm")
        .contains("| 3 | ")
        .containsPattern("\\| rate, cold \\| 4 \\| [0-9,]+ \\|")
        .containsPattern("\\| rate, warm \\| 4 \\| [0-9,]+ \\|")
        .containsPattern("Every claim's outcome: [0-9,]+ claimed, [0-9,]+ completed")
        .contains(" 0 fenced off, 0 failed, 0 abandoned.")
        .doesNotContain("### depth");
  }
}
