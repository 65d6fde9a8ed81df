package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.property.OwnershipInvariant;
import dev.fencing.testkit.property.ProducerInterleaving;
import dev.fencing.testkit.property.ProducerInterleavings;
import dev.fencing.testkit.property.ProducerRunner;
import dev.fencing.testkit.property.PropertySearch;
import dev.fencing.testkit.property.Step;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The producer property suite has power, shown as {@link PropertiesCatchBrokenVariantsTest} shows
 * the worker suite's: each broken variant (one guard taken out) breaks the guard's invariant on its
 * known counterexample, which the real backend keeps; and a search from a fresh seed catches it
 * within 100 interleavings, names the invariant and shrinks it to at most 10 steps, for the
 * variants {@code fencing.power.search} names (the cheapest in {@code verify}, all in {@code
 * -Pfull}).
 */
class ProducerPropertiesCatchBrokenVariantsTest {

  static Stream<Arguments> variants() {
    return Stream.of(
        Arguments.of(
            OwnershipBackends.RenewsWhatItLost.class,
            // a renewal that lies about a lease the store let run out also shows as a second
            // owner acquiring while the first "holds" it
            List.of(
                OwnershipInvariant.ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES,
                OwnershipInvariant.ONE_OWNER_AT_A_TIME),
            interleaving(
                new Step.Acquire(0, 0, true),
                new Step.LeasesRunOut(),
                new Step.Acquire(1, 0, true),
                new Step.Extend(0, 0, true))),
        Arguments.of(
            OwnershipBackends.AcquiresOverTheHolder.class,
            List.of(OwnershipInvariant.EPOCHS_ONLY_GO_UP, OwnershipInvariant.ONE_OWNER_AT_A_TIME),
            interleaving(new Step.Acquire(0, 0, true), new Step.Acquire(1, 0, true))),
        Arguments.of(
            OwnershipBackends.ReceiverWithoutEpochCheck.class,
            List.of(OwnershipInvariant.RECEIVER_KEEPS_NEWEST),
            // the zombie sends after the new owner did
            interleaving(
                new Step.Acquire(0, 0, true),
                new Step.LeasesRunOut(),
                new Step.Acquire(1, 0, true),
                new Step.Send(1, 0),
                new Step.Send(0, 0))));
  }

  /** The variants searched for in this run (see {@link PropertiesCatchBrokenVariantsTest}). */
  static Stream<Arguments> searched() {
    return variants()
        .filter(
            a ->
                PropertiesCatchBrokenVariantsTest.searches(
                    ((Class<?>) a.get()[0]).getSimpleName(), 1))
        .map(a -> Arguments.of(a.get()[0], a.get()[1]));
  }

  private static ProducerInterleaving interleaving(Step... steps) {
    return new ProducerInterleaving(2, 1, List.of(steps));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void theKnownCounterexampleBreaksTheGuardedInvariant(
      Class<? extends OwnershipBackend> variant,
      List<OwnershipInvariant> expected,
      ProducerInterleaving counterexample) {
    ProducerRunner.Run run = runner(variant).run(counterexample);
    System.out.println(variant.getSimpleName() + ", its known counterexample:\n" + run.report());
    assertThat(expected.stream().map(Enum::name).anyMatch(run::breaks))
        .as(
            "%s on its known counterexample, breaking one of %s:%n%s",
            variant, expected, run.report())
        .isTrue();
  }

  /** The counterexamples are about the guards, not the harness: the real backend keeps them all. */
  @Test
  void theRealBackendKeepsEveryInvariantOnEveryCounterexample() {
    ProducerRunner runner = runner(OwnershipBackends.Postgres.class);
    for (Arguments variant : variants().toList()) {
      ProducerInterleaving counterexample = (ProducerInterleaving) variant.get()[2];
      ProducerRunner.Run run = runner.run(counterexample);
      assertThat(run.holds())
          .as("the real backend on %s:%n%s", counterexample, run.report())
          .isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("searched")
  void isCaught(Class<? extends OwnershipBackend> variant, List<OwnershipInvariant> expected) {
    long seed = Long.getLong("fencing.seed", ThreadLocalRandom.current().nextLong());
    ProducerRunner runner = runner(variant);
    PropertySearch.Result<ProducerRunner.Run> result =
        PropertySearch.search(
            new ProducerInterleavings(30),
            new PropertySearch.Settings(seed, 100, Duration.ofSeconds(90)),
            runner::run);
    assertThat(result)
        .as("%s from seed %d", variant.getSimpleName(), seed)
        .isInstanceOf(PropertySearch.Falsified.class);
    PropertySearch.Falsified<ProducerRunner.Run> found =
        (PropertySearch.Falsified<ProducerRunner.Run>) result;
    System.out.println(variant.getSimpleName() + ": " + found.report());
    assertThat(expected.stream().map(Enum::name)).contains(found.invariant());
    assertThat(found.shrunk().interleaving().steps()).hasSizeLessThanOrEqualTo(10);
  }

  private static final java.util.Map<Class<?>, ProducerRunner> RUNNERS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * One runner (and so one set of producer processes) per backend, shared by this class's tests,
   * with the leases of {@link PostgresProducerProperties}: each interleaving names resources of its
   * own.
   */
  private static ProducerRunner runner(Class<? extends OwnershipBackend> backend) {
    return RUNNERS.computeIfAbsent(backend, b -> start(backend));
  }

  @org.junit.jupiter.api.AfterAll
  static void stopProducers() {
    RUNNERS.values().forEach(ProducerRunner::close);
    RUNNERS.clear();
  }

  private static ProducerRunner start(Class<? extends OwnershipBackend> backend) {
    PostgresFixture.Database database = PostgresFixture.get();
    String schema = "broken_" + backend.getSimpleName().toLowerCase(Locale.ROOT);
    database.recreateSchema(schema);
    return new ProducerRunner(
        backend,
        schema,
        database,
        schema,
        Duration.ofMillis(200),
        Duration.ofMillis(300), // as PostgresProducerProperties
        Duration.ofMinutes(2));
  }
}
