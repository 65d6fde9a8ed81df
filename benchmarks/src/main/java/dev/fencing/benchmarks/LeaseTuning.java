package dev.fencing.benchmarks;

import static dev.fencing.benchmarks.LeaseTuningReport.millis;
import static dev.fencing.benchmarks.LeaseTuningReport.quote;
import static dev.fencing.benchmarks.LeaseTuningReport.show;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.PostgresFixture;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    Arguments parsed;
    try {
      parsed = Arguments.parse(args);
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
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    // jOOQ warns that PostgreSQL 15 is older than its dialect; the queue does not care
    System.setProperty(
        "org.slf4j.simpleLogger.log.org.jooq.impl.DefaultExecuteContext.logVersionSupport",
        "error");
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
      PauseDistribution pauses,
      boolean quick) {
    return run(ds, db, leases, pauses, Settings.defaults(quick));
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
      PauseDistribution pauses,
      Settings settings) {
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
      PauseDistribution pauses,
      Settings settings) {
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
      Duration lease = leases.get(i);
      if (lease == null
          || lease.compareTo(MIN_LEASE) < 0
          || lease.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            "leases[" + i + "] must be between 100 ms and 24 h, but was " + show(lease));
      }
    }
    return List.copyOf(new TreeSet<>(leases));
  }

  /**
   * How the tuning judges and how hard it measures.
   *
   * @param heartbeatsPerLease heartbeats per lease length (heartbeat interval = lease / this), 2 to
   *     100
   * @param maxFalseZombieRate the highest acceptable share of live workers fenced off, above 0 and
   *     below 1
   * @param safetyFactor how many p99 pauses a recommended lease must exceed, 1 to 100
   * @param quick a smoke run: fewer jobs, one kill per lease up to 1 s, fewer renews
   */
  public record Settings(
      int heartbeatsPerLease, double maxFalseZombieRate, double safetyFactor, boolean quick) {

    /**
     * @throws IllegalArgumentException naming the first setting out of range, with its value
     */
    public Settings {
      if (heartbeatsPerLease < 2 || heartbeatsPerLease > 100) {
        throw new IllegalArgumentException(
            "heartbeatsPerLease must be between 2 and 100, but was " + heartbeatsPerLease);
      }
      if (!(maxFalseZombieRate > 0 && maxFalseZombieRate < 1)) {
        throw new IllegalArgumentException(
            "maxFalseZombieRate must be above 0 and below 1, but was " + maxFalseZombieRate);
      }
      if (!(safetyFactor >= 1 && safetyFactor <= 100)) {
        throw new IllegalArgumentException(
            "safetyFactor must be between 1 and 100, but was " + safetyFactor);
      }
    }

    /** Heartbeat = lease / 3, at most 0.1 % false zombies, lease above 3 × p99 pause. */
    public static Settings defaults(boolean quick) {
      return new Settings(3, 0.001, 3, quick);
    }

    Duration heartbeat(Duration lease) {
      return lease.dividedBy(heartbeatsPerLease);
    }

    /** Leases up to this are measured with real kills; longer ones are derived. */
    Duration realTakeoverUpTo() {
      return quick ? Duration.ofSeconds(1) : Duration.ofSeconds(5);
    }

    int killsPerLease() {
      return quick ? 1 : 3;
    }

    int liveJobs() {
      return quick ? 60 : 200;
    }

    /** Live-worker runs scale time down so that the lease is at most this long. */
    Duration scaledLeaseCap() {
      return quick ? Duration.ofMillis(500) : Duration.ofSeconds(1);
    }

    int renews() {
      return quick ? 500 : 3000;
    }
  }

  /**
   * How long a worker's handler pauses, each pause stopping the whole process, heartbeats included:
   * a log-normal through {@code p50} and {@code p99}, longer pauses cut to {@code max}.
   *
   * @param p50 the median pause, above zero
   * @param p99 the 99th percentile, at least {@code p50}
   * @param max the longest pause, at least {@code p99} and at most 24 h
   */
  public record PauseDistribution(Duration p50, Duration p99, Duration max) {

    private static final double Z99 = 2.3263478740408408;
    private static final List<String> KEYS = List.of("p50", "p99", "max");

    /**
     * @throws IllegalArgumentException naming the first parameter out of range, with its value
     * @throws NullPointerException if any is null
     */
    public PauseDistribution {
      Objects.requireNonNull(p50, "p50");
      Objects.requireNonNull(p99, "p99");
      Objects.requireNonNull(max, "max");
      if (p50.isNegative() || p50.isZero()) {
        throw new IllegalArgumentException("p50 must be above zero, but was " + show(p50));
      }
      if (p99.compareTo(p50) < 0) {
        throw new IllegalArgumentException(
            "p99 must be at least p50 (" + show(p50) + "), but was " + show(p99));
      }
      if (max.compareTo(p99) < 0) {
        throw new IllegalArgumentException(
            "max must be at least p99 (" + show(p99) + "), but was " + show(max));
      }
      if (max.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException("max must be at most 24 h, but was " + show(max));
      }
    }

    /**
     * Parses {@code p50=20ms,p99=800ms,max=2s}: each key exactly once, in any order.
     *
     * @throws IllegalArgumentException naming the key or item that is missing, repeated, unknown or
     *     malformed, with its value
     */
    public static PauseDistribution parse(String text) {
      if (text == null || text.isBlank()) {
        throw new IllegalArgumentException(
            "pauses must be like p50=20ms,p99=800ms,max=2s, but was " + quote(text));
      }
      Map<String, Duration> values = new HashMap<>();
      for (String item : text.split(",")) {
        int eq = item.indexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException(
              "pauses must be key=duration pairs such as p99=800ms, but had item " + quote(item));
        }
        String key = item.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        if (!KEYS.contains(key)) {
          throw new IllegalArgumentException(
              "pauses may name only p50, p99 and max, but named " + quote(key));
        }
        if (values.put(key, parseDuration(key, item.substring(eq + 1))) != null) {
          throw new IllegalArgumentException(
              "pauses must name " + key + " once, but named it again in " + quote(text));
        }
      }
      for (String key : KEYS) {
        if (!values.containsKey(key)) {
          throw new IllegalArgumentException(
              "pauses must name p50, p99 and max, but " + key + " is missing in " + quote(text));
        }
      }
      return new PauseDistribution(values.get("p50"), values.get("p99"), values.get("max"));
    }

    /** Returns a pause drawn from the distribution, in milliseconds. */
    double sampleMillis(Random random) {
      double pause = millis(p50) * Math.exp(sigma() * random.nextGaussian());
      return Math.min(pause, millis(max));
    }

    /** Returns the probability that a pause lasts longer than {@code ms} milliseconds. */
    double exceeds(double ms) {
      if (ms >= millis(max)) {
        return 0;
      }
      if (ms <= 0) {
        return 1;
      }
      if (sigma() == 0) {
        return ms < millis(p50) ? 1 : 0;
      }
      return 1 - normalCdf(Math.log(ms / millis(p50)) / sigma());
    }

    @Override
    public String toString() {
      return "p50=" + show(p50) + ", p99=" + show(p99) + ", max=" + show(max);
    }

    private double sigma() {
      return Math.log(millis(p99) / millis(p50)) / Z99;
    }

    /** The standard normal CDF, by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
    private static double normalCdf(double z) {
      double x = Math.abs(z) / Math.sqrt(2);
      double t = 1 / (1 + 0.3275911 * x);
      double poly =
          t
              * (0.254829592
                  + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
      double erf = 1 - poly * Math.exp(-x * x);
      return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
    }

    /**
     * Parses a duration such as {@code 800ms}, {@code 1.5s}, {@code 2m}, {@code 1h} or {@code
     * 500us}.
     *
     * @param parameter the parameter's name, for the message
     * @throws IllegalArgumentException naming the parameter and the text
     */
    public static Duration parseDuration(String parameter, String text) {
      Matcher m = DURATION.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new IllegalArgumentException(
            parameter + " must be a duration such as 800ms, 1.5s or 2m, but was " + quote(text));
      }
      long unitNanos =
          switch (m.group(2)) {
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
          };
      BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos));
      if (nanos.compareTo(BigDecimal.valueOf(Duration.ofHours(24).toNanos())) > 0) {
        throw new IllegalArgumentException(
            parameter + " must be at most 24 h, but was " + quote(text));
      }
      return Duration.ofNanos(nanos.setScale(0, RoundingMode.HALF_UP).longValueExact());
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(us|ms|s|m|h)");
  }

  /** The command line, parsed. */
  record Arguments(List<Duration> leases, PauseDistribution pauses, Settings settings) {

    static Arguments parse(String[] args) {
      String leases = "1s,5s,30s";
      String pauses = "p50=20ms,p99=800ms,max=2s";
      Settings d = Settings.defaults(false);
      int beats = d.heartbeatsPerLease();
      double rate = d.maxFalseZombieRate();
      double safety = d.safetyFactor();
      boolean quick = false;
      for (int i = 0; i < args.length; i++) {
        String option = args[i];
        if (option.equals("--quick")) {
          quick = true;
          continue;
        }
        String value = value(args, ++i, option);
        switch (option) {
          case "--leases" -> leases = value;
          case "--pauses" -> pauses = value;
          case "--heartbeats-per-lease" -> beats = (int) number(option, value);
          case "--max-zombie-rate" -> rate = rate(option, value);
          case "--safety-factor" -> safety = number(option, value);
          default -> throw new IllegalArgumentException("unknown option " + quote(option));
        }
      }
      List<Duration> parsed = new ArrayList<>();
      String[] items = leases.split(",");
      for (int i = 0; i < items.length; i++) {
        parsed.add(PauseDistribution.parseDuration("leases[" + i + "]", items[i]));
      }
      return new Arguments(
          parsed, PauseDistribution.parse(pauses), new Settings(beats, rate, safety, quick));
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length || args[i].startsWith("--")) {
        throw new IllegalArgumentException(option + " needs a value, but had none");
      }
      return args[i];
    }

    private static double number(String option, String value) {
      try {
        return Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            option + " must be a number, but was " + quote(value), e);
      }
    }

    /** Reads {@code 0.1%} as 0.001 and a bare number as a fraction. */
    private static double rate(String option, String value) {
      return value.endsWith("%")
          ? number(option, value.substring(0, value.length() - 1)) / 100
          : number(option, value);
    }
  }
}
