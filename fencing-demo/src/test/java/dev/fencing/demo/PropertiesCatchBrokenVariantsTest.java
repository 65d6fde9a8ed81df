package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.Execution;
import dev.fencing.testkit.property.Interleaving;
import dev.fencing.testkit.property.InterleavingRunner;
import dev.fencing.testkit.property.Interleavings;
import dev.fencing.testkit.property.Invariant;
import dev.fencing.testkit.property.PropertySearch;
import dev.fencing.testkit.property.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The property suite's power, tested, in two ways for each of the six broken backends (one guard
 * taken out each), on each engine: {@link BrokenVariants} on the update-in-place one, {@link
 * AppendOnlyBrokenVariants} on the append-only one, the default (named {@code AppendOnly.} and the
 * guard here), which has five of the six ({@code NoExpiryCheckOnRenewal} is load-bearing on the
 * update-in-place engine only, see its javadoc):
 *
 * <ul>
 *   <li><b>Its known counterexample</b> (the interleaving the shrinker found, written down) breaks
 *       the invariant the missing guard protects, and the real backend keeps every invariant on it:
 *       a deterministic test, a few seconds each, that fails when the guard is removed.
 *   <li><b>A search from a fresh seed</b> must catch it within the kit's default number of tries
 *       (500 under a running limit, see {@link #LIMITED_TRIES}) and shrink it to a short
 *       interleaving that names the invariant. A search costs from 2 to 70 interleavings on real
 *       processes by luck of the seed, plus dozens more to shrink, so {@code verify}'s short form
 *       searches for the cheapest variant of the update-in-place engine only ({@code
 *       fencing.power.search} in the root {@code pom.xml}); {@code -Pfull} searches for all eleven.
 *       The searches and counterexamples of {@code NoRunningLimit} and {@code
 *       NoExpiryCheckOnRenewal} run on a queue with a running limit of 1, and more jobs than that
 *       ({@link Interleavings#underLimit}).
 * </ul>
 *
 * <p>Every shrunk counterexample is printed with its seed. The measurement behind the README's
 * claim runs each search five times and writes the table ({@code
 * -Dfencing.power.variants=NoCompareAndSet,AppendOnly.NoCompareAndSet,...} picks some):
 *
 * <pre>
 * ./mvnw -B -pl fencing-demo -am verify -Dtest=PropertiesCatchBrokenVariantsTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dfencing.power.runs=5 \
 *     -Dfencing.power.report=../docs/PROPERTIES.md
 * </pre>
 */
class PropertiesCatchBrokenVariantsTest {

  /** The most steps a shrunk counterexample may have in CI; the goal measured is 6. */
  private static final int MAX_SHRUNK_STEPS = 10;

  private static final int RUNS = Integer.getInteger("fencing.power.runs", 1);

  /**
   * The most tries a search here may take: the kit's default (200), not the short form's 100, so
   * that the slowest variant (found at tries 2 to 70 in docs/PROPERTIES.md) is never missed by
   * chance; the table records how many tries each one really needed.
   */
  private static final int TRIES =
      Integer.getInteger("fencing.power.tries", PropertySearch.DEFAULT_TRIES);

  /**
   * The most tries a search under a running limit may take: {@code NoExpiryCheckOnRenewal} was
   * found at tries 38 to 111 (a mean near 64, docs/PROPERTIES.md), which 200 tries would miss about
   * once in 23 searches ((63/64)^200), 500 about once in 2,600. A search that finds it stops there.
   */
  private static final int LIMITED_TRIES = Integer.getInteger("fencing.power.limit.tries", 500);

  /**
   * How long shrinking may take here: it took 1 to 14 s on a quiet machine, but a machine loaded by
   * other builds made one interleaving with crashes (JVM starts) take seconds; a shrink cut short
   * by its bound would fail the step count for the load's sake, not the suite's.
   */
  private static final Duration SHRINK_BOUND =
      Duration.ofSeconds(Long.getLong("fencing.power.shrink.seconds", 180));

  /**
   * Which variants a search from a fresh seed must catch and shrink here: {@code all}, or a
   * comma-separated list of names. The measurement ({@code fencing.power.runs} above 1) searches
   * for every one.
   */
  private static final String SEARCH = System.getProperty("fencing.power.search", "all");

  private static final List<String> ROWS = new ArrayList<>();

  private static final java.util.Map<Class<?>, InterleavingRunner> RUNNERS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Where the hand-written part of the report begins, which a new measurement keeps. */
  private static final String FORMS_HEADING = "## Short and long forms";

  /** A variant's counterexample on a queue without a running limit. */
  private static final int NO_LIMIT = 0;

  /**
   * Each broken backend, the invariant its missing guard protects, its counterexample, and the
   * running limit of the queue it runs on ({@link #NO_LIMIT} for none).
   */
  static List<Arguments> variants() {
    String only = System.getProperty("fencing.power.variants", "");
    return Stream.of(
            unlimited(
                BrokenVariants.NoCompareAndSet.class,
                Invariant.COMMITS_ONLY_BY_CURRENT_OWNER,
                // the same owner's older lease completes after its own reclaim
                interleaving(
                    new Step.Claim(0, true),
                    new Step.LeasesRunOut(),
                    new Step.Claim(0, false),
                    new Step.Complete(0, 0))),
            unlimited(
                BrokenVariants.NoReceiverEpochCheck.class,
                Invariant.RECEIVER_KEEPS_NEWEST,
                // the zombie delivers after the new owner did
                interleaving(
                    new Step.Claim(0, true),
                    new Step.LeasesRunOut(),
                    new Step.Claim(1, true),
                    new Step.Complete(1, 0),
                    new Step.Complete(0, 0))),
            unlimited(
                BrokenVariants.NoIncrementOnClaim.class,
                Invariant.EPOCHS_ONLY_GO_UP,
                interleaving(
                    new Step.Claim(0, true), new Step.LeasesRunOut(), new Step.Claim(0, true))),
            unlimited(
                BrokenVariants.NoEpochInCompareAndSet.class,
                Invariant.COMMITS_ONLY_BY_CURRENT_OWNER,
                // only the epoch tells the same owner's two leases apart
                interleaving(
                    new Step.Claim(0, true),
                    new Step.LeasesRunOut(),
                    new Step.Claim(0, false),
                    new Step.Renew(0, 0))),
            Arguments.of(
                BrokenVariants.NoRunningLimit.class,
                Invariant.VALID_LEASES_WITHIN_LIMIT,
                // as the search shrank it: a second job claimed while the first holds the slot
                Interleaving.naming(
                    1, 2, List.of(new Step.Claim(0, false), new Step.Claim(0, true))),
                1),
            Arguments.of(
                BrokenVariants.NoExpiryCheckOnRenewal.class,
                Invariant.VALID_LEASES_WITHIN_LIMIT,
                // a zombie's lease runs out, another job takes the slot, the zombie renews;
                // in place only (BrokenVariants.NoExpiryCheckOnRenewal)
                Interleaving.naming(
                    1,
                    2,
                    List.of(
                        new Step.Claim(0, true),
                        new Step.LeasesRunOut(),
                        new Step.Claim(1, false),
                        new Step.Renew(0, 0))),
                1))
        .flatMap(PropertiesCatchBrokenVariantsTest::onBothEngines)
        .filter(a -> only.isBlank() || listed(only, name((Class<?>) a.get()[0])))
        .toList();
  }

  /**
   * {@code updateInPlace} (a variant of {@link BrokenVariants}) and, with the same invariant and
   * counterexample, its namesake in {@link AppendOnlyBrokenVariants}: the guard is the same, so is
   * what its absence breaks. {@code NoExpiryCheckOnRenewal} has none (see its javadoc).
   */
  private static Stream<Arguments> onBothEngines(Arguments updateInPlace) {
    Object[] args = updateInPlace.get();
    return Stream.concat(
        Stream.of(updateInPlace),
        Stream.of(AppendOnlyBrokenVariants.class.getDeclaredClasses())
            .filter(c -> c.getSimpleName().equals(((Class<?>) args[0]).getSimpleName()))
            .map(appendOnly -> Arguments.of(appendOnly, args[1], args[2], args[3])));
  }

  private static Arguments unlimited(
      Class<?> backend, Invariant invariant, Interleaving counterexample) {
    return Arguments.of(backend, invariant, counterexample, NO_LIMIT);
  }

  /** Runs {@code interleaving} on a queue with the running limit {@code limit}, if any. */
  private static Execution run(InterleavingRunner runner, Interleaving interleaving, int limit) {
    return limit == NO_LIMIT ? runner.run(interleaving) : runner.run(interleaving, limit);
  }

  /** How this test names a broken backend: {@code AppendOnly.} before the append-only ones. */
  static String name(Class<?> backend) {
    return (backend.getEnclosingClass() == AppendOnlyBrokenVariants.class ? "AppendOnly." : "")
        + backend.getSimpleName();
  }

  /** Whether {@code name} is one of the comma-separated names (a name, not a part of one). */
  private static boolean listed(String commaSeparated, String name) {
    return Stream.of(commaSeparated.split(",")).map(String::strip).anyMatch(name::equals);
  }

  /** The variants searched for in this run: see {@link #SEARCH}. */
  static List<Arguments> searched() {
    return variants().stream()
        .filter(a -> searches(name((Class<?>) a.get()[0]), RUNS))
        .map(a -> Arguments.of(a.get()[0], a.get()[1], a.get()[3]))
        .toList();
  }

  /** One job, and only the workers the steps name: a worker that does nothing costs a JVM. */
  private static Interleaving interleaving(Step... steps) {
    return Interleaving.naming(1, 1, List.of(steps));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void theKnownCounterexampleBreaksTheGuardedInvariant(
      Class<? extends FencingBackend> backend,
      Invariant expected,
      Interleaving counterexample,
      int limit) {
    String name = name(backend);
    Execution execution = run(runner(backend), counterexample, limit);
    System.out.println("== " + name + ", its known counterexample:\n" + execution.report());
    assertThat(execution.breaks(expected.name()))
        .as("%s on its known counterexample:%n%s", name, execution.report())
        .isTrue();
  }

  /**
   * The counterexamples are about the guards, not the harness: the real backend, on each engine,
   * keeps them all.
   */
  @ParameterizedTest
  @ValueSource(classes = {UpdateInPlacePostgresBackend.class, AppendOnlyPostgresBackend.class})
  void theRealBackendKeepsEveryInvariantOnEveryCounterexample(
      Class<? extends FencingBackend> real) {
    InterleavingRunner runner = runner(real);
    for (List<Object> known :
        variants().stream().map(a -> List.of(a.get()[2], a.get()[3])).distinct().toList()) {
      Interleaving counterexample = (Interleaving) known.get(0);
      Execution execution = run(runner, counterexample, (int) known.get(1));
      assertThat(execution.holds())
          .as("%s on %s:%n%s", real.getSimpleName(), counterexample, execution.report())
          .isTrue();
    }
  }

  /**
   * One runner (and so one pool of worker processes) per backend, shared by this class's tests:
   * each interleaving runs in a queue of its own.
   */
  private static InterleavingRunner runner(Class<? extends FencingBackend> backend) {
    return RUNNERS.computeIfAbsent(
        backend,
        b ->
            new InterleavingRunner(
                PostgresFixture.get(),
                backend,
                "power_" + name(backend).replace('.', '_').toLowerCase(Locale.ROOT)));
  }

  @AfterAll
  static void stopWorkers() {
    RUNNERS.values().forEach(InterleavingRunner::close);
    RUNNERS.clear();
  }

  @ParameterizedTest
  @MethodSource("searched")
  void theDefaultTriesCatchTheBrokenVariantAndShrinkIt(
      Class<? extends FencingBackend> backend, Invariant expected, int limit) {
    String name = name(backend);
    InterleavingRunner runner = runner(backend);
    Interleavings domain =
        limit == NO_LIMIT ? Interleavings.defaults() : Interleavings.underLimit(limit);
    for (int run = 1; run <= RUNS; run++) {
      PropertySearch.Settings fromProperties = PropertySearch.Settings.fromSystemProperties();
      PropertySearch.Settings settings =
          new PropertySearch.Settings(
              run == 1 ? fromProperties.seed() : new SecureRandom().nextLong(),
              limit == NO_LIMIT ? TRIES : LIMITED_TRIES,
              SHRINK_BOUND);
      PropertySearch.Result<Execution> result =
          PropertySearch.search(domain, settings, i -> run(runner, i, limit));

      assertThat(result)
          .as("%s, seed %d: the property suite must fail", name, settings.seed())
          .isInstanceOf(PropertySearch.Falsified.class);
      PropertySearch.Falsified<Execution> falsified = (PropertySearch.Falsified<Execution>) result;
      System.out.println("== " + name + ", run " + run + ": " + falsified.report());
      ROWS.add(row(name, run, falsified));
      assertThat(falsified.shrunk().report()).contains(expected.name());
      assertThat(falsified.shrunk().interleaving().steps())
          .as("%s, seed %d: shrunk counterexample", name, settings.seed())
          .hasSizeLessThanOrEqualTo(MAX_SHRUNK_STEPS);
    }
  }

  @Test
  void theSuiteInItsDownstreamShapeFailsWithTheInvariantTheSeedAndTheTimeline() {
    // the search itself is measured above; here only the shape, so shrinking is kept short
    String bound = System.getProperty(PropertySearch.SHRINK_SECONDS_PROPERTY);
    System.setProperty(PropertySearch.SHRINK_SECONDS_PROPERTY, "5");
    List<Event> failures;
    try {
      failures =
          EngineTestKit.engine("junit-jupiter")
              .selectors(selectClass(BrokenVariantSafety.NoIncrementOnClaim.class))
              .execute()
              .testEvents()
              .failed()
              .list();
    } finally {
      if (bound == null) {
        System.clearProperty(PropertySearch.SHRINK_SECONDS_PROPERTY);
      } else {
        System.setProperty(PropertySearch.SHRINK_SECONDS_PROPERTY, bound);
      }
    }

    assertThat(failures).hasSize(1);
    Throwable cause =
        failures
            .getFirst()
            .getPayload(TestExecutionResult.class)
            .flatMap(TestExecutionResult::getThrowable)
            .orElseThrow();
    assertThat(cause)
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("invariant EPOCHS_ONLY_GO_UP broken by try ")
        .hasMessageContaining("replay: -Dfencing.seed=")
        .hasMessageContaining("timeline:");
  }

  @AfterAll
  static void table() throws IOException {
    String table =
        "| variant | run | seed | found at try | steps found | steps shrunk | shrink runs |"
            + " shrink s | invariant |\n|---|---|---|---|---|---|---|---|---|\n"
            + String.join("\n", ROWS)
            + "\n";
    System.out.println(table);
    String report = System.getProperty("fencing.power.report");
    if (report != null && !report.isBlank()) {
      Path file = Path.of(report);
      // the hand-written section on the short and long forms stays
      String old = Files.exists(file) ? Files.readString(file) : "";
      int kept = old.indexOf(FORMS_HEADING);
      Files.writeString(
          file,
          "# The property suite's power, measured\n\n"
              + "Each broken backend, searched "
              + RUNS
              + " time(s) from fresh seeds with "
              + TRIES
              + " tries and a shrink bound of "
              + SHRINK_BOUND.toSeconds()
              + " s, by:\n\n```\n./mvnw -B -pl fencing-demo -am verify"
              + " -Dtest=PropertiesCatchBrokenVariantsTest -Dsurefire.failIfNoSpecifiedTests=false"
              + " -Dfencing.power.runs="
              + RUNS
              + " -Dfencing.power.report=../docs/PROPERTIES.md\n```\n\n"
              + "Machine: "
              + Runtime.getRuntime().availableProcessors()
              + " cores, Java "
              + Runtime.version()
              + ", PostgreSQL from the test fixture. Any seed replays with"
              + " `-Dfencing.seed=<seed>`.\n\n"
              + table
              + (kept < 0 ? "" : "\n" + old.substring(kept)));
    }
  }

  /** Whether a search for {@code variant} runs: see {@link #SEARCH}. */
  static boolean searches(String variant, int runs) {
    return runs > 1 || SEARCH.equals("all") || listed(SEARCH, variant);
  }

  private static String row(String name, int run, PropertySearch.Falsified<Execution> f) {
    return String.format(
        Locale.ROOT,
        "| %s | %d | %d | %d | %d | %d | %d | %.1f | %s |",
        name,
        run,
        f.seed(),
        f.tryNumber(),
        f.found().interleaving().steps().size(),
        f.shrunk().interleaving().steps().size(),
        f.shrinkRuns(),
        f.shrinkTime().toMillis() / 1000.0,
        f.invariant());
  }
}
