package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The short form of {@link EngineBenchmark}: the full-load shape at 4 workers on both engines, each
 * for two seconds in a JVM of its own, to prove the append-only engine runs under {@code
 * FencedWorkers} with the harness's producer and that the ratio row is written. Its numbers mean
 * nothing; no time is asserted.
 */
class EngineBenchmarkSmokeTest {

  @Test
  void theQuickFormRunsBothEnginesAndWritesOneRowPerWorkerCountWithTheRatio() throws Exception {
    Path out = Path.of("target", "bench", "ENGINES-smoke.md");
    EngineBenchmark.main(
        new String[] {
          "--quick", "--only", "depth", "--warmup", "0", "--seconds", "2", "--out", out.toString()
        });
    String report = Files.readString(out);
    assertThat(report)
        .startsWith(EngineBenchmark.TITLE)
        .containsPattern("\\n\\| 4 \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+ \\| ")
        .containsPattern(
            "- depth, 4 workers, update in place: [0-9,†]+ [0-9,†]+ jobs/s\\. Every claim's outcome:")
        .containsPattern(
            "- depth, 4 workers, append-only: [0-9,†]+ [0-9,†]+ jobs/s\\. Every claim's outcome:")
        .doesNotContainPattern(
            "[1-9][0-9,]* fenced off|[1-9][0-9,]* failed,|[1-9][0-9,]* abandoned")
        .contains("Enqueues that failed: 0.")
        .doesNotContain("jobs/s offered from a cold start");
  }

  @Test
  void workerCountsThatAreNotPositiveIntegersAreRefused() {
    assertThatThrownBy(() -> EngineBenchmark.workers("4,0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--workers must be positive integers separated by commas, but was '4,0'");
    assertThat(EngineBenchmark.workers("4, 16")).containsExactly(4, 16);
  }
}
