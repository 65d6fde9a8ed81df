package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How soon {@link dev.fencing.runtime.FencedWorkers} claim again after a {@code kill -9} of the
 * leader (docs/HA.md, "Claims after a kill -9 of the leader"): per kill, from the kill and from the
 * promoted node's first write ({@link WritableProbe}) until a worker's handler starts on a claim of
 * the new generation. Each pool variant runs its own worker JVM ({@link FailoverWorkerMain}) on its
 * own queue through the same kills, with every connection attempt of its pool and every claim
 * printed ({@link TracedDataSource}), so the time between the new primary and the first claim can
 * be taken apart:
 *
 * <ul>
 *   <li>{@code plain}: HikariCP (connection timeout 2 s) on pgjdbc's data source and the multi-host
 *       URL, as docs/HA.md advised before issue 35. HikariCP's attempts come at its backoff,
 *       doubling from 10 ms to 5 s: about 5.1 s and 10.2 s after the kill, then every 5 s. When the
 *       new primary takes writes just after the one at 10.2 s, the first claim comes 5 s later.
 *   <li>{@code waiting}: the same pool on {@link dev.fencing.postgres.PrimaryWaitingDataSource}, as
 *       docs/HA.md advises now: the pool's attempt waits for the primary itself, trying every 250
 *       ms. Each first claim must come within {@link #RECOVERY} of the first write.
 * </ul>
 *
 * <p>Tagged {@code long}: not part of the default build (each kill takes about 25 s with the
 * rejoin), which excludes that tag ({@code fencing.test.excludedGroups}); {@code -Pfull} runs it,
 * and {@link #COMMAND} runs it alone. System properties, all {@code fencing.recovery.}: {@code
 * kills} (3), {@code pools} (the variants, comma-separated; {@code plain,waiting}), {@code mode}
 * ({@code async}, or {@code sync}: Patroni's synchronous mode and the library's {@code
 * synchronousReplication(true)}).
 */
@Tag("long")
@ExtendWith(SharedPatroniCluster.class)
@FencingDatabase
class RecoveryAfterKillTest {

  /** The command that measures docs/HA.md's figures. */
  static final String COMMAND =
      "./mvnw -B -Pfull -pl fencing-ha -am verify -Dtest=RecoveryAfterKillTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -DskipPitest=true -Djacoco.skip=true"
          + " -Dfencing.recovery.kills=12";

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** The longest a first claim on {@code waiting} may follow the first write. */
  private static final Duration RECOVERY = Duration.ofSeconds(3);

  private static final String QUEUE = "recovery";
  private static final int JOBS_PER_KILL = 400;
  private static final Duration LEASE = Duration.ofSeconds(5);

  /** The pool variants: the worker JVM's options for each. */
  static final Map<String, List<String>> VARIANTS =
      Map.of(
          "plain",
          List.of(
              "-D" + FailoverWorkerMain.CONNECTION_TIMEOUT_PROPERTY + "=2000",
              "-D" + FailoverWorkerMain.POOL_PROPERTY + "=plain"),
          "waiting",
          List.of(
              "-D" + FailoverWorkerMain.CONNECTION_TIMEOUT_PROPERTY + "=2000",
              "-D" + FailoverWorkerMain.POOL_PROPERTY + "=waiting"));

  private final int kills = Integer.getInteger("fencing.recovery.kills", 3);
  private final List<String> pools =
      List.of(System.getProperty("fencing.recovery.pools", "plain,waiting").split(","));
  private final String mode = System.getProperty("fencing.recovery.mode", "async");

  /**
   * One kill: ms from the kill until the new primary took writes, and per variant until the first
   * claim; and per variant its pool's connection attempts and claims meanwhile.
   */
  record Kill(long writable, Map<String, Long> claims, Map<String, String> timelines) {}

  @Test
  void workersClaimSoonAfterTheNewPrimaryTakesWrites(
      PatroniCluster cluster, TestSchema receiverSchema) throws Exception {
    if (kills < 1) {
      throw new IllegalArgumentException(
          "fencing.recovery.kills must be at least 1, but was " + kills + " (" + COMMAND + ")");
    }
    boolean sync = FailoverFaultTest.synchronous(mode, "fencing.recovery.mode");
    String loadBefore = load();
    cluster.readyForKills(sync, WAIT);
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    DataSource pool = db.pooledDataSource(2, Duration.ofSeconds(5));
    Map<String, PostgresFencing> handles = new LinkedHashMap<>();
    Map<String, JavaProcess> workers = new LinkedHashMap<>();
    List<Kill> results = new ArrayList<>();
    try {
      for (String variant : pools) {
        String schema = db.freshSchema("recovery");
        String receiver = "recovery_" + variant.replace('-', '_');
        handles.put(
            variant,
            PostgresFencing.builder(pool).schema(schema).synchronousReplication(sync).build());
        PostgresFencing.builder(receiverSchema.dataSource())
            .schema(receiverSchema.name())
            .build()
            .receiver(receiver);
        workers.put(variant, startWorker(cluster, schema, receiverSchema, receiver, variant, mode));
      }
      for (JavaProcess w : workers.values()) {
        w.await(0, "ready"::equals, Duration.ofMinutes(1));
      }
      for (int k = 0; k < kills; k++) {
        cluster.heal(WAIT);
        cluster.switchSynchronousMode(sync, WAIT); // a rejoined node is the standby again
        for (PostgresFencing handle : handles.values()) {
          handle.queue().enqueueAll(QUEUE, Collections.nCopies(JOBS_PER_KILL, "{\"ms\": 50}"));
        }
        cluster.awaitReplicated(WAIT);
        OsProcesses.pause(Duration.ofMillis(1_500)); // the workers at work
        Kill kill = killOnce(cluster, workers);
        results.add(kill);
        System.out.println("RecoveryAfterKillTest: kill " + (k + 1) + ": " + kill);
      }
    } finally {
      for (JavaProcess w : workers.values()) {
        w.send("stop");
      }
      for (JavaProcess w : workers.values()) {
        try {
          w.await(0, "stopped"::equals, Duration.ofSeconds(30));
          w.awaitExit(Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
          System.out.println("RecoveryAfterKillTest: " + e.getMessage());
        }
        w.close();
      }
      if (sync) {
        cluster.heal(WAIT);
        cluster.switchSynchronousMode(false, WAIT); // as the other tests of the cluster expect
      }
    }
    System.out.println(summary(results, loadBefore, load()));
    SoftAssertions softly = new SoftAssertions();
    for (Kill kill : results) {
      kill.claims()
          .forEach(
              (variant, claim) -> {
                if (!variant.equals("plain")) {
                  softly
                      .assertThat(claim - kill.writable())
                      .as("%s: ms from the first write to the first claim, %s", variant, kill)
                      .isLessThan(RECOVERY.toMillis());
                }
              });
    }
    softly.assertAll();
    assertThat(results).hasSize(kills);
  }

  /** The load averages (1, 5 and 15 minutes), from /proc/loadavg. */
  private static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private Kill killOnce(PatroniCluster cluster, Map<String, JavaProcess> workers) {
    int leader = cluster.leader();
    long killedAt;
    long writableAt;
    int killed;
    try (WritableProbe probe = new WritableProbe(cluster, leader == 0 ? 1 : 0)) {
      killedAt = System.currentTimeMillis();
      killed = cluster.killLeader();
      writableAt = probe.awaitWritable(WAIT);
    }
    cluster.awaitNewLeader(WAIT);
    long generation = cluster.timeline() - 1;
    Map<String, Long> claims = new LinkedHashMap<>();
    Map<String, String> timelines = new LinkedHashMap<>();
    for (Map.Entry<String, JavaProcess> w : workers.entrySet()) {
      long claim = FailoverFaultTest.firstClaimOf(generation, List.of(w.getValue()), killedAt);
      claims.put(w.getKey(), claim - killedAt);
      timelines.put(w.getKey(), timeline(w.getValue().lines(), killedAt, claim));
    }
    cluster.startNode(killed);
    return new Kill(writableAt - killedAt, claims, timelines);
  }

  /** The pool's connection attempts and the runtime's claims from the kill to the claim. */
  private static String timeline(List<String> lines, long from, long to) {
    StringBuilder text = new StringBuilder();
    for (String line : lines) {
      String[] f = line.split("\t", 4);
      if ((f[0].equals("connect") || f[0].equals("claimBatch")) && f.length == 4) {
        long start = Long.parseLong(f[1]);
        long end = Long.parseLong(f[2]);
        if (end >= from && start <= to + 1_000) {
          String outcome = f[3].length() > 60 ? f[3].substring(0, 60) : f[3];
          text.append(
              String.format(
                  Locale.ROOT, "%n    %-10s %6d..%6d %s", f[0], start - from, end - from, outcome));
        }
      }
    }
    return text.toString();
  }

  private String summary(List<Kill> kills, String loadBefore, String loadAfter) {
    StringBuilder text =
        new StringBuilder("RecoveryAfterKillTest: ")
            .append(kills.size())
            .append(" kills, ")
            .append(mode)
            .append(" mode (load average before ")
            .append(loadBefore)
            .append(", after ")
            .append(loadAfter)
            .append("); ms, nearest-rank p50 / p99 (max)\n");
    long[] writable = kills.stream().mapToLong(Kill::writable).sorted().toArray();
    text.append("  the new primary took writes after the kill: ")
        .append(percentiles(writable))
        .append('\n');
    for (String variant : kills.get(0).claims().keySet()) {
      long[] claims = kills.stream().mapToLong(k -> k.claims().get(variant)).sorted().toArray();
      long[] after =
          kills.stream().mapToLong(k -> k.claims().get(variant) - k.writable()).sorted().toArray();
      text.append("  ")
          .append(variant)
          .append(": first claim after the kill ")
          .append(percentiles(claims))
          .append(", after the new primary took writes ")
          .append(percentiles(after))
          .append("\n    every kill (after the kill/after the first write): ")
          .append(
              kills.stream()
                  .map(
                      k -> k.claims().get(variant) + "/" + (k.claims().get(variant) - k.writable()))
                  .collect(Collectors.joining(" ")))
          .append('\n');
    }
    return text.toString();
  }

  /** Nearest-rank p50 / p99 (max) of sorted samples. */
  static String percentiles(long[] sorted) {
    return rank(sorted, 0.50) + " / " + rank(sorted, 0.99) + " (" + sorted[sorted.length - 1] + ")";
  }

  private static long rank(long[] sorted, double p) {
    return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
  }

  private static JavaProcess startWorker(
      PatroniCluster cluster,
      String schema,
      TestSchema receiverSchema,
      String receiver,
      String variant,
      String mode) {
    List<String> options = new ArrayList<>();
    options.add("-D" + FailoverWorkerMain.TRACE_PROPERTY + "=true");
    List<String> own = VARIANTS.get(variant);
    if (own == null) {
      throw new IllegalArgumentException("fencing.recovery.pools: no variant " + variant);
    }
    options.addAll(own);
    return FailoverWorkerMain.start(
        variant,
        options,
        cluster,
        schema,
        receiverSchema,
        receiver,
        QUEUE,
        variant,
        LEASE,
        4,
        mode,
        FailoverFaultTest.REAL);
  }
}
