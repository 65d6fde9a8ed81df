package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.tuning.LeaseModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;

/**
 * Lease-length tuning: for each candidate lease, how long a killed worker's job waits for another
 * worker, how many live but paused workers are fenced off anyway, and what heartbeats cost; then
 * the lease to use.
 *
 * <pre>
 * --leases 1s,5s,30s --pauses p50=20ms,p99=800ms,max=2s [--quick]
 *   [--heartbeats-per-lease 3] [--max-zombie-rate 0.1%] [--safety-factor 3]
 * </pre>
 */
public final class LeaseTuning {

  private static final String USAGE =
      "usage: LeaseTuning --leases 1s,5s,30s --pauses p50=20ms,p99=800ms,max=2s [--quick]"
          + " [--heartbeats-per-lease 3] [--max-zombie-rate 0.1%] [--safety-factor 3]";
  private static final Duration MIN_LEASE = Duration.ofMillis(100);
  private static final long SEED = 20_240_601L;

  private LeaseTuning() {}

  /** Runs the tuning on {@link BenchDatabase#database()} and prints the Markdown report. */
  public static void main(String[] args) {
    quietLogs();
    LeaseTuningArguments parsed;
    try {
      parsed = LeaseTuningArguments.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    PostgresFixture.Database db = BenchDatabase.database();
    try (HikariDataSource pool = BenchDatabase.pool(db, 16)) {
      System.out.println(run(pool, db, parsed.leases(), parsed.pauses(), parsed.settings()));
    }
    System.exit(0);
  }

  private static void quietLogs() {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
  }

  /**
   * Runs the tuning with the default settings and returns the report as Markdown.
   *
   * @param ds a pool (at least 8 connections) on {@code db}, for the simulated live workers
   * @param db where worker processes connect and the scratch schema goes (dropped at the end)
   * @param quick a smoke run of a few seconds, with fewer jobs and kills
   * @throws IllegalArgumentException naming a lease that is missing or out of range
   */
  public static String run(
      DataSource ds,
      PostgresFixture.Database db,
      List<Duration> leases,
      LeaseModel pauses,
      boolean quick) {
    return run(ds, db, leases, pauses, LeaseTuningSettings.defaults(quick));
  }

  /**
   * Runs the tuning and returns the report as Markdown.
   *
   * @throws IllegalArgumentException naming a lease that is missing or out of range
   */
  public static String run(
      DataSource ds,
      PostgresFixture.Database db,
      List<Duration> leases,
      LeaseModel pauses,
      LeaseTuningSettings settings) {
    Objects.requireNonNull(pauses, "pauses");
    Objects.requireNonNull(settings, "settings");
    List<Duration> candidates = checkLeases(leases);
    String schema = db.freshSchema("lease_tuning");
    try {
      FencedQueue queue = PostgresFencing.builder(ds).schema(schema).build().queue();
      return measure(ds, db, schema, queue, candidates, pauses, settings);
    } finally {
      db.dropSchema(schema);
    }
  }

  private static String measure(
      DataSource ds,
      PostgresFixture.Database db,
      String schema,
      FencedQueue queue,
      List<Duration> leases,
      LeaseModel pauses,
      LeaseTuningSettings settings) {
    List<Duration> killed =
        leases.stream().filter(l -> l.compareTo(settings.realTakeoverUpTo()) <= 0).toList();
    // Worker JVMs boot first, alone, so that their start-up does not disturb the timed runs.
    try (LeaseTuningTakeover takeover =
        LeaseTuningTakeover.start(db, schema, killed, settings.killsPerLease(), SEED)) {
      CompletableFuture<List<LeaseTuningTakeover.Kill>> kills =
          takeover.measure(settings.heartbeatsPerLease());
      List<LeaseTuningLive.ZombieRun> zombies = new ArrayList<>();
      for (int i = 0; i < leases.size(); i++) {
        zombies.add(
            LeaseTuningLive.falseZombies(
                queue, "live_" + i, leases.get(i), pauses, settings, SEED + i));
      }
      List<LeaseTuningTakeover.Kill> done = kills.join();
      LeaseTuningLive.HeartbeatCost cost = LeaseTuningLive.heartbeatCost(db, schema, settings);
      return new LeaseTuningReport(db, leases, pauses, settings, done, zombies, cost).markdown();
    }
  }

  private static List<Duration> checkLeases(List<Duration> leases) {
    Objects.requireNonNull(leases, "leases");
    if (leases.isEmpty()) {
      throw new IllegalArgumentException("leases must name at least one lease, but was empty");
    }
    for (int i = 0; i < leases.size(); i++) {
      Validate.between("leases[" + i + "]", leases.get(i), MIN_LEASE, Validate.MAX_LEASE);
    }
    return List.copyOf(new TreeSet<>(leases));
  }
}
