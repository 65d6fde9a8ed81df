package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.OwnershipBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The property suite for producers, for any {@link dev.fencing.ResourceOwnership} backend: every
 * generated interleaving of 2-4 real producer processes (two of them sharing an owner name) that
 * acquire, renew, release and send over 1-2 resources, with real stalls ({@code SIGSTOP}), crashes
 * ({@code SIGKILL}) and leases that run out, keeps every {@link OwnershipInvariant}. Subclass it
 * once:
 *
 * <pre>{@code
 * class EtcdProducerProperties extends OwnershipSafetyProperties {
 *   protected Class<? extends OwnershipBackend> backend() { return EtcdBackend.class; }
 *   protected String address() { return etcd.endpoints(); }
 * }
 * }</pre>
 *
 * The receiver's database comes from {@link PostgresFixture#get()}. Failing interleavings shrink,
 * and the failure names the invariant, shows the timeline and prints the seed that replays it. A
 * pass prints one line: {@code PostgresProducerProperties: 30 interleavings passed (seed 42)}.
 *
 * @since 0.1
 */
public abstract class OwnershipSafetyProperties {

  private static final Map<Class<?>, ProducerRunner> RUNNERS = new ConcurrentHashMap<>();

  /** The backend under test; producer processes load it by class name. */
  protected abstract Class<? extends OwnershipBackend> backend();

  /** The address producer processes open the backend at. */
  protected abstract String address();

  /** The short lease: short enough to wait out; default 300 ms. */
  protected Duration shortLease() {
    return Duration.ofMillis(300);
  }

  /** How long "leases run out" waits, so that every short lease has ended; default 3 short ones. */
  protected Duration leasesRunOut() {
    return shortLease().multipliedBy(3);
  }

  /** The long lease, which never runs out within an interleaving; default 2 minutes. */
  protected Duration longLease() {
    return Duration.ofMinutes(2);
  }

  /** The most steps an interleaving has; default 30. */
  protected int maxSteps() {
    return 30;
  }

  /** The interleavings tried; default up to {@link #maxSteps()} steps. */
  protected ProducerInterleavings interleavings() {
    return new ProducerInterleavings(maxSteps());
  }

  /**
   * Tries {@link #tries()} interleavings from a fresh seed, or replays the seed in {@value
   * PropertySearch#SEED_PROPERTY}.
   *
   * @throws AssertionError naming the invariant, the seed and the shrunk interleaving's timeline
   */
  @Test
  public void everyProducerInterleavingKeepsTheInvariants() {
    PropertySearch.Settings settings =
        PropertySearch.Settings.fromSystemProperties(
                PropertySearch.PRODUCER_TRIES_PROPERTY, PropertySearch.DEFAULT_PRODUCER_TRIES)
            .withTries(tries());
    PropertySearch.Result<ProducerRunner.Run> result =
        PropertySearch.search(interleavings(), settings, runner()::run);
    switch (result) {
      case PropertySearch.Falsified<ProducerRunner.Run> falsified ->
          throw new AssertionError(falsified.report());
      case PropertySearch.Passed<ProducerRunner.Run> passed ->
          System.out.println(getClass().getSimpleName() + ": " + passed.report());
    }
  }

  /**
   * How many interleavings to try: system property {@value PropertySearch#PRODUCER_TRIES_PROPERTY},
   * default {@value PropertySearch#DEFAULT_PRODUCER_TRIES}.
   *
   * @throws IllegalArgumentException if the property is not a whole number from 1 to 100,000
   */
  protected int tries() {
    return PropertySearch.Settings.fromSystemProperties(
            PropertySearch.PRODUCER_TRIES_PROPERTY, PropertySearch.DEFAULT_PRODUCER_TRIES)
        .tries();
  }

  /** Returns this class's runner, started on first use. */
  protected ProducerRunner runner() {
    return RUNNERS.computeIfAbsent(
        getClass(),
        c -> {
          PostgresFixture.Database database = PostgresFixture.get();
          String schema = schemaFor(c);
          database.recreateSchema(schema);
          return new ProducerRunner(
              backend(), address(), database, schema, shortLease(), leasesRunOut(), longLease());
        });
  }

  /** Ends every producer process; a subclass that stops its service calls it first. */
  @AfterAll
  protected static void stopProducers() {
    List<ProducerRunner> runners = new ArrayList<>(RUNNERS.values());
    RUNNERS.clear();
    runners.forEach(ProducerRunner::close);
  }

  private static String schemaFor(Class<?> type) {
    String name = type.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return ("owners_" + name).substring(0, Math.min(60, 7 + name.length()));
  }
}
