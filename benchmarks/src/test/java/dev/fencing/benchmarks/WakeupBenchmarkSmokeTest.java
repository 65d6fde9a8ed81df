package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** One short run of {@link WakeupBenchmark}, to prove it runs. Nothing here asserts a time. */
class WakeupBenchmarkSmokeTest {

  @Test
  void theQuickFormRunsAndReportsEveryRow() throws Exception {
    Path out = Path.of("target", "bench", "WAKEUPS-smoke.md");
    WakeupBenchmark.main(new String[] {"--quick", "--out", out.toString()});
    String report = Files.readString(out);
    assertThat(report)
        .contains("## Wake-ups: LISTEN/NOTIFY against polling")
        .contains("| notify, fallback poll 1 s | 15 |")
        .contains("| poll every 50 ms | 15 |")
        .contains("| poll every 1 s | 15 |")
        .contains("| single | yes |")
        .contains("| batch of 100 | no |");
  }
}
