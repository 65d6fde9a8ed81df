package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker suites' runners ({@link ZombieSafetyProperties}, {@link LimitSafetyProperties}): one
 * per suite class, in a schema named after it, started on first use and all closed when a suite
 * ends, so that no worker process outlives it.
 */
final class SuiteRunners {

  private final String prefix;
  private final Map<Class<?>, InterleavingRunner> runners = new ConcurrentHashMap<>();

  /** Runners whose schemas are named {@code prefix} and the suite's class name. */
  SuiteRunners(String prefix) {
    this.prefix = prefix;
  }

  /** Returns {@code suite}'s runner of {@code backend}, started on first use. */
  InterleavingRunner of(Class<?> suite, Class<? extends FencingBackend> backend) {
    return runners.computeIfAbsent(
        suite, c -> new InterleavingRunner(PostgresFixture.get(), backend, schemaFor(c)));
  }

  /**
   * Closes every runner, the others too when one fails.
   *
   * @throws RuntimeException the first runner's failure to close, once all were tried
   */
  void closeAll() {
    List<InterleavingRunner> all = new ArrayList<>(runners.values());
    runners.clear();
    RuntimeException first = null;
    for (InterleavingRunner runner : all) {
      try {
        runner.close();
      } catch (RuntimeException e) {
        // close the others all the same: no worker process may outlive the suite
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private String schemaFor(Class<?> type) {
    String name = type.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    String schema = prefix + name;
    return schema.substring(0, Math.min(60, schema.length()));
  }
}
