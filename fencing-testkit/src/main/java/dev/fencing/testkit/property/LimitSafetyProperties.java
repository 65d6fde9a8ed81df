package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The running limit's property suite, for any backend with queue limits ({@link
 * dev.fencing.FencedQueue#setLimits}): every generated interleaving of 2-4 real worker processes
 * that claim, renew, deliver, complete, fail, stall ({@code SIGSTOP}), crash ({@code SIGKILL}) and
 * let their leases run out, on a queue with a running limit of N and more jobs than N, never has
 * more than N jobs under valid leases ({@link Invariant#VALID_LEASES_WITHIN_LIMIT}), and keeps
 * every other {@link Invariant}. After every action the valid leases are counted by the store
 * itself when the backend implements {@link ValidLeaseCount}, and from the jobs' snapshots in any
 * case. Subclass it once per backend:
 *
 * <pre>{@code
 * class InvoiceLimitSafetyTest extends LimitSafetyProperties {
 *   protected Class<? extends FencingBackend> backend() { return InvoiceBackend.class; }
 * }
 * }</pre>
 *
 * PostgreSQL comes from {@link PostgresFixture#get()}; each subclass gets a schema of its own. A
 * failure names the invariant and the limit, shows the shrunk timeline, and prints the seed that
 * replays the search ({@code -Dfencing.seed=...}); a pass prints one line per limit: {@code
 * PostgresLimitSafetyProperties: limit 1: 60 interleavings passed (seed 42); limit 2: ...}.
 *
 * @since 0.1
 */
public abstract class LimitSafetyProperties {

  private static final SuiteRunners RUNNERS = new SuiteRunners("limit_");

  /** The backend under test; worker processes load it by class name. */
  protected abstract Class<? extends FencingBackend> backend();

  /** The running limits searched, one search each; default 1 and 2. */
  protected List<Integer> limits() {
    return List.of(1, 2);
  }

  /** The interleavings tried under a limit of {@code maxRunning}; override to narrow or widen. */
  protected Interleavings interleavings(int maxRunning) {
    return Interleavings.underLimit(maxRunning);
  }

  /**
   * How many interleavings to try per limit: system property {@value
   * PropertySearch#LIMIT_TRIES_PROPERTY}, default {@value PropertySearch#DEFAULT_LIMIT_TRIES}.
   *
   * @throws IllegalArgumentException if the property is not a whole number from 1 to 100,000
   */
  protected int tries() {
    return settings().tries();
  }

  /**
   * For each of {@link #limits()}, tries {@link #tries()} interleavings from a fresh seed, or
   * replays the seed in {@value PropertySearch#SEED_PROPERTY}; one seed for every limit.
   *
   * @throws AssertionError naming the limit, the invariant, the seed and the shrunk interleaving's
   *     timeline
   */
  @Test
  public void validLeasesNeverOutnumberTheLimit() {
    PropertySearch.Settings settings = settings().withTries(tries());
    List<String> passed = new ArrayList<>();
    for (int max : limits()) {
      PropertySearch.Result<Execution> result =
          PropertySearch.search(interleavings(max), settings, i -> runner().run(i, max));
      switch (result) {
        case PropertySearch.Falsified<Execution> falsified ->
            throw new AssertionError("running limit " + max + ": " + falsified.report());
        case PropertySearch.Passed<Execution> p -> passed.add("limit " + max + ": " + p.report());
      }
    }
    System.out.println(getClass().getSimpleName() + ": " + String.join("; ", passed));
  }

  private static PropertySearch.Settings settings() {
    return PropertySearch.Settings.fromSystemProperties(
        PropertySearch.LIMIT_TRIES_PROPERTY, PropertySearch.DEFAULT_LIMIT_TRIES);
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
