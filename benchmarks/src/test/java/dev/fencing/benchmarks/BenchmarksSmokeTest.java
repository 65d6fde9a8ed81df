package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * One smoke run of every benchmark: a single short iteration on a small queue, to prove they run.
 * Nothing here asserts a time.
 */
class BenchmarksSmokeTest {

  @Test
  void everyBenchmarkRunsAndTheReportHasEachSection() throws Exception {
    // a benchmark run elsewhere on the machine must not make the smoke run fail on JMH's lock
    System.setProperty("jmh.ignoreLock", "true");
    Path out = Path.of("target", "bench", "BENCHMARKS-smoke.md");
    BenchmarksMain.main(new String[] {"--quick", "--out", out.toString()});
    String report = Files.readString(out);
    assertThat(report)
        .contains("## End to end: claim, no-op, complete")
        .contains("| pool | 10 | 2 |")
        .contains("| library | 1 | 1 |")
        .contains("| raw | 1 | 1 |")
        .contains("## db-scheduler at equal threads")
        .contains("## Several worker processes on one queue")
        .contains("| claim / job | commit / job | renew / job | txn / job |")
        .contains("## Targets")
        .contains("## Lease-length tuning");
  }
}
