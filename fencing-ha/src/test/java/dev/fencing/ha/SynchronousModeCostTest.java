package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.ha.SynchronousModeCost.Check;
import dev.fencing.ha.SynchronousModeCost.Measurement;
import dev.fencing.ha.SynchronousModeCost.Mode;
import dev.fencing.ha.SynchronousModeCost.Settings;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.Replication;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What synchronous mode costs: the same queue calls on the same two-node Patroni cluster in
 * asynchronous mode (the default) and in synchronous mode (Patroni's {@code synchronous_mode} and
 * {@code synchronousReplication(true)}), rounds interleaving the modes. CI runs a tiny form (100
 * cycles per mode, one thread) and asserts only what is not about time: every cycle completed,
 * every synchronous round had a synchronous standby attached before and after it, and the table has
 * its rows. The long form ({@code fencing.synccost.*}, see {@link Settings#from}) writes its
 * section of docs/BENCHMARKS.md ({@link SynchronousModeCostReport}).
 */
@ExtendWith(SharedPatroniCluster.class)
class SynchronousModeCostTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void everyCycleCompletesInBothModesAndEverySynchronousRoundHadAStandby(PatroniCluster cluster)
      throws IOException {
    Settings settings = Settings.from(System::getProperty);
    cluster.heal(WAIT);
    String loadBefore = loadAverage();
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    DataSource pool =
        db.pooledDataSource(Collections.max(settings.threads()), Duration.ofSeconds(10));
    List<Measurement> measurements = new ArrayList<>();
    List<Check> checks = new ArrayList<>();
    try {
      if (settings.fsync()) {
        cluster.setFsync(true, WAIT);
      }
      for (int round = settings.warmup() > 0 ? 0 : 1; round <= settings.rounds(); round++) {
        int cycles = round == 0 ? settings.warmup() : settings.cycles();
        for (Mode mode : Mode.values()) {
          String standby = switchTo(cluster, mode);
          String schema = db.freshSchema("synccost_" + mode.label());
          try {
            PostgresFencing fencing =
                PostgresFencing.builder(pool)
                    .schema(schema)
                    .synchronousReplication(mode == Mode.SYNC)
                    .build();
            Replication before = fencing.replication();
            for (int threads : settings.threads()) {
              String queue = "cost_t" + threads;
              measurements.add(
                  SynchronousModeCost.measure(
                      mode,
                      round,
                      fencing.queue(),
                      queue,
                      threads,
                      cycles,
                      () -> rows(fencing, queue)));
            }
            checks.add(new Check(mode, round, before, fencing.replication(), standby));
          } finally {
            db.dropSchema(schema);
          }
        }
      }
    } finally {
      cluster.switchSynchronousMode(false, WAIT);
      if (settings.fsync()) {
        cluster.setFsync(false, WAIT);
      }
    }
    String loadAfter = loadAverage();

    for (Measurement m : measurements) {
      String what = m.mode().label() + ", round " + m.round() + ", " + m.threads() + " threads";
      assertThat(m.rows()).as("jobs enqueued, %s", what).isEqualTo(m.cycles());
      assertThat(m.completed()).as("jobs completed, %s", what).isEqualTo(m.cycles());
      assertThat(m.claimNanos()).as("claims, %s", what).hasSize(m.cycles()).doesNotContain(0L);
    }
    for (Check check : checks) {
      String what = check.mode().label() + ", round " + check.round();
      if (check.mode() == Mode.SYNC) {
        for (Replication r : List.of(check.before(), check.after())) {
          assertThat(r.synchronousMode()).as("synchronous mode, %s", what).isTrue();
          assertThat(r.standby()).as("standby, %s", what).isEqualTo(Replication.Standby.ATTACHED);
          assertThat(r.standbyNames()).as("standby names, %s", what).contains(check.standby());
        }
      } else {
        for (Replication r : List.of(check.before(), check.after())) {
          assertThat(r.synchronousMode()).as("synchronous mode, %s", what).isFalse();
          assertThat(r.standbyNames()).as("standby names, %s", what).isEmpty();
        }
      }
    }
    String section =
        SynchronousModeCostReport.section(
            settings,
            measurements,
            checks,
            cluster.query(cluster.leader(), "select version()"),
            loadBefore,
            loadAfter);
    System.out.println(section);
    if (settings.report().isPresent()) {
      Path page = settings.report().get();
      String before = Files.exists(page) ? Files.readString(page) : "";
      Files.writeString(page, SynchronousModeCostReport.replaceSection(before, section));
    }
  }

  /**
   * Switches Patroni to {@code mode} and waits until the leader follows; returns the synchronous
   * standby's name in sync mode, empty in async mode.
   */
  private static String switchTo(PatroniCluster cluster, Mode mode) {
    return cluster.switchSynchronousMode(mode == Mode.SYNC, WAIT);
  }

  /** The completed jobs and all jobs of {@code queue}, read by the operators' admin. */
  private static long[] rows(PostgresFencing fencing, String queue) {
    QueueSummary q =
        fencing.admin().queues(true).stream()
            .filter(s -> s.queue().equals(queue))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no jobs of " + queue + " in " + fencing));
    long completed = q.completed() == null ? 0 : q.completed();
    return new long[] {completed, q.pending() + q.running() + q.failed() + completed};
  }

  /** The 1, 5 and 15 minute load averages of the machine, from {@code /proc/loadavg}. */
  private static String loadAverage() throws IOException {
    String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return fields[0] + ", " + fields[1] + ", " + fields[2];
  }
}
