package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.property.OwnershipInvariant;
import dev.fencing.testkit.property.ProducerRunner;
import dev.fencing.testkit.property.ProducerSchedules;
import dev.fencing.testkit.property.PropertySearch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The producer property suite has power: each broken variant, one guard taken out, is caught from a
 * fresh seed within 100 schedules, and the failure names the guard's invariant; the variants that
 * shrink in this run ({@code fencing.power.shrink}, see {@link PropertiesCatchBrokenVariantsTest})
 * shrink to at most 10 steps.
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
                OwnershipInvariant.ONE_OWNER_AT_A_TIME)),
        Arguments.of(
            OwnershipBackends.AcquiresOverTheHolder.class,
            List.of(OwnershipInvariant.EPOCHS_ONLY_GO_UP, OwnershipInvariant.ONE_OWNER_AT_A_TIME)),
        Arguments.of(
            OwnershipBackends.ReceiverWithoutEpochCheck.class,
            List.of(OwnershipInvariant.RECEIVER_KEEPS_NEWEST)));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void isCaught(Class<? extends OwnershipBackend> variant, List<OwnershipInvariant> expected) {
    PostgresFixture.Database database = PostgresFixture.get();
    String schema = "broken_" + variant.getSimpleName().toLowerCase();
    database.recreateSchema(schema);
    long seed = Long.getLong("fencing.seed", ThreadLocalRandom.current().nextLong());
    boolean shrinks = PropertiesCatchBrokenVariantsTest.shrinks(variant.getSimpleName(), 1);
    try (ProducerRunner runner =
        new ProducerRunner(
            variant,
            schema,
            database,
            schema,
            Duration.ofMillis(200),
            Duration.ofMillis(300), // as PostgresProducerProperties
            Duration.ofMinutes(2))) {
      PropertySearch.Result<ProducerRunner.Run> result =
          PropertySearch.search(
              new ProducerSchedules(30),
              new PropertySearch.Settings(
                  seed, 100, shrinks ? Duration.ofSeconds(90) : Duration.ZERO),
              runner::run);
      assertThat(result)
          .as("%s from seed %d", variant.getSimpleName(), seed)
          .isInstanceOf(PropertySearch.Falsified.class);
      PropertySearch.Falsified<ProducerRunner.Run> found =
          (PropertySearch.Falsified<ProducerRunner.Run>) result;
      System.out.println(variant.getSimpleName() + ": " + found.report());
      assertThat(expected.stream().map(Enum::name)).contains(found.invariant());
      if (shrinks) {
        assertThat(found.shrunk().schedule().steps()).hasSizeLessThanOrEqualTo(10);
      }
    }
  }
}
