package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** One short run of the enqueue benchmark, to prove it runs; nothing here asserts a time. */
class EnqueueBenchmarkSmokeTest {

  @Test
  void everyModeRunsAndIsReported() throws Exception {
    Path out = Path.of("target", "bench", "enqueue-smoke.md");
    EnqueueBenchmark.main(new String[] {"--quick", "--out", out.toString()});
    assertThat(Files.readString(out))
        .contains("## Enqueue with and without idempotency keys")
        .contains("| plain | 1 | 1 |")
        .contains("| keyed | 100 | 4 |")
        .contains("| keyed again | 100 | 4 |");
  }
}
