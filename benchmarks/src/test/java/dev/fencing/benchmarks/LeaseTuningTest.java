package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.tuning.LeaseModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseTuningTest {

  private static final LeaseModel GC = LeaseTuningArguments.pauses("p50=20ms,p99=800ms,max=2s");

  @Test
  void quickRunReportsEveryLeaseAndRecommendsOne() {
    PostgresFixture.Database db = BenchDatabase.database();
    List<Duration> leases =
        List.of(Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5));
    String report;
    try (HikariDataSource pool = BenchDatabase.pool(db, 8)) {
      report = LeaseTuning.run(pool, db, leases, GC, true);
    }

    assertThat(report.lines().filter(l -> l.startsWith("| 1 s | 333 ms |"))).hasSize(1);
    assertThat(report.lines().filter(l -> l.startsWith("| 5 s | 1.67 s |"))).hasSize(1);
    assertThat(report.lines().filter(l -> l.startsWith("| 30 s | 10 s |"))).hasSize(1);
    // 5 s is the shortest candidate above 3 × p99 = 2.4 s, and no pause (max 2 s) outlasts 3.3 s
    assertThat(report).contains("**RECOMMENDED: lease 5 s, heartbeat 1.67 s.**", "Rule: ");
  }

  @Test
  void recommendsNothingWhenEveryCandidateIsTooShort() {
    List<Duration> leases = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2));
    var report =
        new LeaseTuningReport(
            new PostgresFixture.Database("jdbc:postgresql://nowhere/x", "", "", "test"),
            leases,
            GC,
            LeaseTuningSettings.defaults(true),
            List.of(),
            leases.stream()
                .map(l -> new LeaseTuningLive.ZombieRun(l, 60, 0, 0, 0.5, Duration.ofMillis(3)))
                .toList(),
            new LeaseTuningLive.HeartbeatCost(500, 1, 2, 1000));

    assertThat(report.markdown())
        .contains("RECOMMENDED: none of the candidates; try a lease of at least 2.4")
        .contains("| 2 s | 667 ms | ≈ ");
  }

  @Test
  void parsesPausesInAnyOrderAndUnit() {
    LeaseModel pauses = LeaseTuningArguments.pauses(" max=1.5s, p99 = 800ms,p50=500us");

    assertThat(pauses.p50()).isEqualTo(Duration.ofNanos(500_000));
    assertThat(pauses.p99()).isEqualTo(Duration.ofMillis(800));
    assertThat(pauses.max()).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void refusesBadPausesNamingTheParameterAndValue() {
    assertRefused("p50=20ms,p99=800ms", "pauses must name p50, p99 and max, but max is missing");
    assertRefused("p50=abc,p99=800ms,max=2s", "p50 must be a duration", "but was 'abc'");
    assertRefused("p50=20ms,p90=800ms,max=2s", "pauses may name only p50, p99 and max", "'p90'");
    assertRefused("p50=20ms,p50=30ms,p99=1s,max=2s", "pauses must name p50 once");
    assertRefused("p50,p99=800ms,max=2s", "pauses must be key=duration pairs", "'p50'");
    assertRefused("", "pauses must be like p50=20ms,p99=800ms,max=2s, but was ''");
    assertRefused("p50=0ms,p99=800ms,max=2s", "p50 must be above zero, but was PT0S");
    assertRefused(
        "p50=900ms,p99=800ms,max=2s", "p99 must be at least p50 (PT0.9S), but was PT0.8S");
    assertRefused(
        "p50=20ms,p99=800ms,max=500ms", "max must be at least p99 (PT0.8S), but was PT0.5S");
    assertRefused("p50=20ms,p99=800ms,max=25h", "max must be at most 24 h, but was '25h'");
  }

  @Test
  void refusesBadSettingsAndArguments() {
    assertThatThrownBy(() -> LeaseTuning.run(null, null, List.of(Duration.ofMillis(50)), GC, true))
        .hasMessage("leases[0] must be between PT0.1S and PT24H, but was PT0.05S");
    assertThatThrownBy(() -> new LeaseTuningSettings(1, 0.001, 3, true))
        .hasMessage("heartbeatsPerLease must be between 2 and 100, but was 1");
    assertThatThrownBy(() -> new LeaseTuningSettings(3, 0, 3, true))
        .hasMessage("maxFalseZombieRate must be above 0 and below 1, but was 0.0");
    assertThatThrownBy(() -> LeaseTuningArguments.parse(new String[] {"--leases", "1s,soon"}))
        .hasMessage("leases[1] must be a duration such as 800ms, 1.5s or 2m, but was 'soon'");
    assertThatThrownBy(() -> LeaseTuningArguments.parse(new String[] {"--leases"}))
        .hasMessage("--leases needs a value, but had none");
    assertThatThrownBy(() -> LeaseTuningArguments.parse(new String[] {"--lease", "1s"}))
        .hasMessage("unknown option '--lease'");
  }

  private static void assertRefused(String text, String... fragments) {
    assertThatThrownBy(() -> LeaseTuningArguments.pauses(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(fragments);
  }
}
