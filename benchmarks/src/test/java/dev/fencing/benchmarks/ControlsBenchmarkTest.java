package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ControlsBenchmark}'s arguments, and its short form: {@code plain} against {@code limit} at
 * 4 handler threads on both engines, two seconds each, to prove the limit variant sets the queue's
 * running limit and that the valid leases counted during the run never passed it. Its numbers mean
 * nothing; no time is asserted.
 */
class ControlsBenchmarkTest {

  @Test
  @Tag(
      "long") // two engines' runs: -Pfull; the variants' arguments are checked below in every build
  void theLimitVariantRunsOnBothEnginesAndItsValidLeasesNeverPassTheLimit() throws Exception {
    Path out = Path.of("target", "bench", "CONTROLS-smoke.md");
    ControlsBenchmark.main(
        new String[] {
          "--quick",
          "--variants",
          "limit",
          "--warmup",
          "0",
          "--seconds",
          "2",
          "--out",
          out.toString()
        });
    String report = Files.readString(out);
    // at 4 threads the limit is 3; without it the runtime would hold up to 4 + 400 prefetched
    assertThat(report)
        .startsWith("## " + ControlsBenchmark.TITLE)
        .containsPattern(
            "\\n\\| 4 \\| update \\| plain \\| [0-9,]+ \\| 1\\.00 \\| [0-9.]+ \\| 1\\.00 \\| – \\|")
        .containsPattern(
            "\\n\\| 4 \\| append \\| plain \\| [0-9,]+ \\| 1\\.00 \\| [0-9.]+ \\| 1\\.00 \\| – \\|")
        .containsPattern(
            "\\n\\| 4 \\| update \\| limit \\| [0-9,]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [1-3] \\(3\\); [0-9]+ % \\|")
        .containsPattern(
            "\\n\\| 4 \\| append \\| limit \\| [0-9,]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [1-3] \\(3\\); [0-9]+ % \\|")
        .doesNotContain("vs today");
  }

  @Test
  void theLimitIsFourFifthsOfTheHandlerThreadsRounded() {
    assertThat(ControlsBenchmark.maxRunning(16)).isEqualTo(13);
    assertThat(ControlsBenchmark.maxRunning(64)).isEqualTo(51);
    assertThat(ControlsBenchmark.maxRunning(1)).isEqualTo(1);
    assertThatThrownBy(() -> ControlsBenchmark.maxRunning(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads must be positive, but was 0");
  }

  @Test
  void onlyTheLimitVariantPassesARunningLimitToItsRun() {
    assertThat(ControlsBenchmark.runArgs(64, "append", "limit", 10, 30))
        .containsSubsequence("--max-running", "51")
        .containsSubsequence("--schema", "bench_controls_limit")
        .doesNotContain("--priorities");
    assertThat(ControlsBenchmark.runArgs(64, "append", "plain", 10, 30))
        .doesNotContain("--max-running", "--priorities");
    assertThat(ControlsBenchmark.runArgs(16, "update", "high-limit", 10, 30))
        .containsSubsequence("--max-running", "1000000");
    assertThat(ControlsBenchmark.runArgs(16, "update", "priorities", 10, 30))
        .containsSubsequence("--priorities", "3")
        .doesNotContain("--max-running");
  }

  @Test
  void plainAlwaysRunsAndTodayOnlyWhenNamed() {
    assertThat(ControlsBenchmark.variants("limit")).containsExactly("plain", "limit");
    assertThat(ControlsBenchmark.variants("plain,limit,priorities"))
        .containsExactly("plain", "limit", "priorities");
    assertThat(ControlsBenchmark.variants("today,plain,priorities,limit"))
        .containsExactly("plain", "today", "priorities", "limit");
  }

  @Test
  void anUnknownVariantIsRefused() {
    assertThatThrownBy(() -> ControlsBenchmark.variants("plain,limits"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--variants must be some of today,plain,priorities,limit,high-limit, but was"
                + " 'plain,limits'");
  }

  @Test
  void todayWithoutABaselineIsRefusedBeforeAnythingRuns() {
    assertThatThrownBy(() -> ControlsBenchmark.main(new String[] {"--variants", "plain,today"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--baseline must name the benchmarks.jar");
  }
}
