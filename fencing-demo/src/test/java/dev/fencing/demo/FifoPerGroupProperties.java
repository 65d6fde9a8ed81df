package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.demo.FifoPerGroupExecution.Invariant;
import dev.fencing.demo.FifoPerGroupInterleaving.GroupedJob;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.PropertySearch;
import dev.fencing.testkit.property.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FIFO per group and the group limit, searched over real worker processes on both engines: a queue
 * limited by {@code withMaxRunningPerGroup(1).withFifoPerGroup()}, jobs of 2 or 3 groups at random
 * priorities, workers that claim, complete, fail (at once or after a retry delay), release, stall
 * ({@code SIGSTOP}), resume, crash ({@code SIGKILL}) and let their leases run out; the {@link
 * Invariant}s are checked after every action ({@link FifoPerGroupRunner}).
 *
 * <ul>
 *   <li>A search from a fresh seed per engine passes: {@code fencing.tries} / 15 interleavings (4
 *       in {@code verify}, 13 in {@code -Pfull}); {@code -Dfencing.seed=...} replays one.
 *   <li>Known interleavings, one per rule (FIFO over priorities, a retry holding its group with
 *       room for one and for two, an expired job taken over first, a released job started again
 *       first), kept by both engines; and, run on request, what FIFO with room for two does not
 *       keep today.
 *   <li>The broken variant ({@link FifoPerGroupBrokenVariants}: FIFO dropped from the stored
 *       limits) breaks {@link Invariant#FIFO_FIRST_STARTS} on its shrunk counterexample, on each
 *       engine; under {@code -Pfull} (tag {@code long}) a search from a fresh seed must catch it
 *       and shrink it.
 * </ul>
 */
class FifoPerGroupProperties {

  private static final Map<Class<?>, FifoPerGroupRunner> RUNNERS = new ConcurrentHashMap<>();

  /** The most steps the broken variant's shrunk counterexample may have. */
  private static final int MAX_SHRUNK_STEPS = 4;

  private static FifoPerGroupRunner runner(Class<? extends FencingBackend> engine) {
    return RUNNERS.computeIfAbsent(
        engine,
        e ->
            new FifoPerGroupRunner(
                PostgresFixture.get(),
                engine,
                "fifo_"
                    + e.getSimpleName().toLowerCase(Locale.ROOT).replace("postgresbackend", "")));
  }

  @AfterAll
  static void stopWorkers() {
    RUNNERS.values().forEach(FifoPerGroupRunner::close);
    RUNNERS.clear();
  }

  @ParameterizedTest
  @ValueSource(classes = {UpdateInPlacePostgresBackend.class, AppendOnlyPostgresBackend.class})
  void everyInterleavingKeepsFifoAndTheGroupLimit(Class<? extends FencingBackend> engine) {
    PropertySearch.Settings fromProperties = PropertySearch.Settings.fromSystemProperties();
    PropertySearch.Settings settings =
        fromProperties.withTries(Math.max(1, fromProperties.tries() / 15));
    FifoPerGroupRunner runner = runner(engine);
    PropertySearch.Result<FifoPerGroupExecution> result = search(settings, runner::run);
    switch (result) {
      case PropertySearch.Falsified<FifoPerGroupExecution> falsified ->
          throw new AssertionError(engine.getSimpleName() + ": " + falsified.report());
      case PropertySearch.Passed<FifoPerGroupExecution> passed ->
          System.out.println(
              "FifoPerGroupProperties, "
                  + engine.getSimpleName()
                  + ": "
                  + passed.report()
                  + "; worker JVMs started so far: "
                  + runner.processesStarted());
    }
  }

  /** One interleaving per rule, each kept by the real queue; the first is the variant's. */
  static Stream<Arguments> rules() {
    List<GroupedJob> laterFirstByPriority = List.of(new GroupedJob("a", 0), new GroupedJob("a", 5));
    // the second claim finds the head waiting for its retry: nothing may start in its group
    List<Step> retryHolds =
        List.of(
            new Step.Claim(0, false),
            FifoPerGroupInterleaving.failLater(0, 0),
            new Step.Claim(0, false),
            new Step.LeasesRunOut(),
            new Step.Claim(0, false));
    return Stream.of(
        Arguments.of(
            "FIFO over priorities: the older job starts first",
            // the broken variant's counterexample as the shrinker left it (seeds
            // -8112607035482536511
            // and 1252578940786925829): one claim over two jobs of a group, the later one ranked
            // higher
            FifoPerGroupInterleaving.of(
                2, 1, laterFirstByPriority, List.of(new Step.Claim(0, true)))),
        Arguments.of(
            "a head waiting for its retry holds its group",
            FifoPerGroupInterleaving.of(1, 1, laterFirstByPriority, retryHolds)),
        Arguments.of(
            "a head waiting for its retry holds its group, with room for two",
            // the older job ranked higher, and no claim once the retry is surely due: with room for
            // two, FIFO is kept over neither priorities nor due times (see below), and a claim that
            // comes after the retry is due on a slow machine still takes the older job
            FifoPerGroupInterleaving.of(
                1,
                2,
                List.of(new GroupedJob("a", 5), new GroupedJob("a", 0)),
                retryHolds.subList(0, 3))),
        Arguments.of(
            "an expired job keeps its group's place and is taken over first",
            FifoPerGroupInterleaving.of(
                2,
                1,
                laterFirstByPriority,
                List.of(
                    new Step.Claim(0, true),
                    new Step.Stall(0),
                    new Step.LeasesRunOut(),
                    new Step.Claim(1, false),
                    new Step.Resume(0),
                    new Step.Complete(0, 0),
                    new Step.Claim(0, false)))),
        Arguments.of(
            "a released job starts again before a later one",
            FifoPerGroupInterleaving.of(
                1,
                1,
                List.of(new GroupedJob("a", 3), new GroupedJob("a", 5), new GroupedJob("b", 0)),
                List.of(
                    new Step.Claim(0, false),
                    FifoPerGroupInterleaving.release(0, 0),
                    new Step.Claim(0, false),
                    new Step.Claim(0, false),
                    new Step.Claim(0, false)))));
  }

  static Stream<Arguments> rulesOnBothEngines() {
    return rules()
        .flatMap(
            rule ->
                Stream.of(UpdateInPlacePostgresBackend.class, AppendOnlyPostgresBackend.class)
                    .map(engine -> Arguments.of(engine, rule.get()[0], rule.get()[1])));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("rulesOnBothEngines")
  void theRealQueueKeepsEachRule(
      Class<? extends FencingBackend> engine, String rule, FifoPerGroupInterleaving interleaving) {
    FifoPerGroupExecution execution = runner(engine).run(interleaving);
    System.out.println("== " + engine.getSimpleName() + ", " + rule + ":\n" + execution.report());
    assertThat(execution.holds()).as("%s, %s:%n%s", engine, rule, execution.report()).isTrue();
  }

  /**
   * FIFO with room for two per group: the older job of a group starts first, over priorities and
   * over a later job that became due earlier (a claim starts a FIFO group's head only, one a
   * claim). A job whose lease ran out keeps its group's place (it is under way, whatever its
   * lease), so the next job may start beside it: first starts stay in order.
   */
  @ParameterizedTest
  @ValueSource(classes = {UpdateInPlacePostgresBackend.class, AppendOnlyPostgresBackend.class})
  void withRoomForTwoTheOlderJobStillStartsFirst(Class<? extends FencingBackend> engine) {
    List<GroupedJob> alike = List.of(new GroupedJob("a", 0), new GroupedJob("a", 0));
    List<FifoPerGroupInterleaving> interleavings =
        List.of(
            // the later job ranks higher
            FifoPerGroupInterleaving.of(
                1,
                2,
                List.of(new GroupedJob("a", 0), new GroupedJob("a", 5)),
                List.of(new Step.Claim(0, false))),
            // the older job's lease ran out: it keeps its place (under way), the next may start
            FifoPerGroupInterleaving.of(
                1,
                2,
                alike,
                List.of(new Step.Claim(0, true), new Step.LeasesRunOut(), new Step.Claim(0, true))),
            // the older job failed: once its retry is due, it is due later than the other
            FifoPerGroupInterleaving.of(
                1,
                2,
                alike,
                List.of(
                    new Step.Claim(0, false),
                    FifoPerGroupInterleaving.failLater(0, 0),
                    new Step.LeasesRunOut(),
                    new Step.Claim(0, false))));
    List<String> broken = new ArrayList<>();
    for (FifoPerGroupInterleaving interleaving : interleavings) {
      FifoPerGroupExecution execution = runner(engine).run(interleaving);
      System.out.println("== " + engine.getSimpleName() + ", room for two:\n" + execution.report());
      if (!execution.holds()) {
        broken.add(execution.report());
      }
    }
    assertThat(broken).as("%s, room for two", engine.getSimpleName()).isEmpty();
  }

  static Stream<Arguments> brokenVariants() {
    FifoPerGroupInterleaving counterexample =
        (FifoPerGroupInterleaving) rules().findFirst().orElseThrow().get()[1];
    return Stream.of(
        Arguments.of(
            UpdateInPlacePostgresBackend.class,
            FifoPerGroupBrokenVariants.NoFifoPerGroup.class,
            counterexample),
        Arguments.of(
            AppendOnlyPostgresBackend.class,
            FifoPerGroupBrokenVariants.AppendOnlyNoFifoPerGroup.class,
            counterexample));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("brokenVariants")
  void theKnownCounterexampleBreaksFifo(
      Class<? extends FencingBackend> engine,
      Class<? extends FencingBackend> variant,
      FifoPerGroupInterleaving counterexample) {
    FifoPerGroupExecution execution = runner(engine).run(counterexample, variant);
    System.out.println("== " + variant.getSimpleName() + ":\n" + execution.report());
    assertThat(execution.firstInvariant())
        .as("%s on its known counterexample:%n%s", variant, execution.report())
        .isEqualTo(Invariant.FIFO_FIRST_STARTS.name());
  }

  @Tag("long")
  @ParameterizedTest(name = "{1}")
  @MethodSource("brokenVariants")
  void aSearchFromAFreshSeedCatchesTheBrokenVariantAndShrinksIt(
      Class<? extends FencingBackend> engine, Class<? extends FencingBackend> variant) {
    PropertySearch.Settings settings =
        new PropertySearch.Settings(
            PropertySearch.Settings.fromSystemProperties().seed(),
            PropertySearch.DEFAULT_TRIES,
            Duration.ofSeconds(120));
    FifoPerGroupRunner runner = runner(engine);
    PropertySearch.Result<FifoPerGroupExecution> result =
        search(settings, s -> runner.run(s, variant));
    assertThat(result)
        .as("%s, seed %d: the search must fail", variant, settings.seed())
        .isInstanceOf(PropertySearch.Falsified.class);
    PropertySearch.Falsified<FifoPerGroupExecution> falsified =
        (PropertySearch.Falsified<FifoPerGroupExecution>) result;
    System.out.println("== " + variant.getSimpleName() + ": " + falsified.report());
    assertThat(falsified.invariant()).isEqualTo(Invariant.FIFO_FIRST_STARTS.name());
    assertThat(falsified.shrunk().steps())
        .as("%s, seed %d: shrunk counterexample", variant, settings.seed())
        .hasSizeLessThanOrEqualTo(MAX_SHRUNK_STEPS);
  }

  /**
   * Searches with {@code property}; an interleaving that could not run to its end fails the test
   * with the seed (the kit's engine stops only for its own runner's abort).
   */
  private static PropertySearch.Result<FifoPerGroupExecution> search(
      PropertySearch.Settings settings,
      Function<FifoPerGroupInterleaving, FifoPerGroupExecution> property) {
    AtomicReference<RuntimeException> aborted = new AtomicReference<>();
    PropertySearch.Result<FifoPerGroupExecution> result =
        PropertySearch.search(
            FifoPerGroupInterleavings.defaults(),
            settings,
            s -> {
              try {
                return property.apply(s);
              } catch (RuntimeException e) {
                aborted.compareAndSet(null, e);
                throw e;
              }
            });
    if (aborted.get() != null) {
      throw new AssertionError(
          "seed " + settings.seed() + ": an interleaving could not run", aborted.get());
    }
    return result;
  }
}
