package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The property suite, for any backend: every generated interleaving of 2-4 real worker processes
 * over 1-3 jobs keeps every {@link Invariant}. Subclass it once, say which {@link FencingBackend}
 * to test, and name the class so that your test runner picks it up (e.g. {@code ...Properties} or
 * {@code ...Test} for Surefire):
 *
 * <pre>{@code
 * class InvoiceSenderZombieSafetyTest extends ZombieSafetyProperties {
 *   protected Class<? extends FencingBackend> backend() { return InvoiceBackend.class; }
 * }
 * }</pre>
 *
 * PostgreSQL comes from {@link PostgresFixture#get()}; each subclass gets a schema of its own.
 * Failing interleavings shrink (see {@link PropertySearch}), and the failure names the invariant,
 * shows the timeline of the smallest interleaving found, and prints the seed that replays the
 * search: {@code -Dfencing.seed=...}. A pass prints one line with the count and the seed that
 * replays it: {@code PostgresZombieSafetyProperties: 200 interleavings passed (seed 42)}.
 *
 * @since 0.1
 */
public abstract class ZombieSafetyProperties {

  private static final SuiteRunners RUNNERS = new SuiteRunners("props_");

  /** The backend under test; worker processes load it by class name. */
  protected abstract Class<? extends FencingBackend> backend();

  /**
   * Tries {@link #tries()} interleavings from a fresh seed, or replays the seed in {@value
   * PropertySearch#SEED_PROPERTY}.
   *
   * @throws AssertionError naming the invariant, the seed and the shrunk interleaving's timeline
   */
  @Test
  public void everyInterleavingKeepsTheInvariants() {
    PropertySearch.Settings settings =
        PropertySearch.Settings.fromSystemProperties().withTries(tries());
    PropertySearch.Result<Execution> result =
        PropertySearch.search(interleavings(), settings, runner()::run);
    switch (result) {
      case PropertySearch.Falsified<Execution> falsified ->
          throw new AssertionError(falsified.report());
      case PropertySearch.Passed<Execution> passed ->
          System.out.println(getClass().getSimpleName() + ": " + passed.report());
    }
  }

  /** The interleavings tried; override to narrow or widen them. */
  protected Interleavings interleavings() {
    return Interleavings.defaults();
  }

  /**
   * How many interleavings to try: system property {@value PropertySearch#TRIES_PROPERTY}, default
   * {@value PropertySearch#DEFAULT_TRIES}.
   *
   * @throws IllegalArgumentException if the property is not a whole number from 1 to 100,000
   */
  protected int tries() {
    return PropertySearch.Settings.fromSystemProperties().tries();
  }

  /** Returns this class's runner, started on first use. */
  protected InterleavingRunner runner() {
    return RUNNERS.of(getClass(), backend());
  }

  @AfterAll
  static void stopWorkers() {
    RUNNERS.closeAll();
  }
}
