package dev.fencing.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeProperty;

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
 * Failing schedules shrink, and the failure shows the timeline of the smallest one.
 */
public abstract class ZombieSafetyProperties {

  /** The number of schedules tried per run. */
  public static final int TRIES = 200;

  private static final Map<Class<?>, ScheduleRunner> RUNNERS = new ConcurrentHashMap<>();

  /**
   * Classes whose container has ended. jqwik abandons a shrink that runs past its time bound, and
   * the abandoned attempt may still ask for a runner: it must not start workers no one will stop.
   */
  private static final Set<Class<?>> FINISHED = ConcurrentHashMap.newKeySet();

  /** The backend under test; worker processes load it by class name. */
  protected abstract Class<? extends FencingBackend> backend();

  @Property(tries = TRIES, edgeCases = EdgeCasesMode.NONE)
  void everyInterleavingKeepsTheInvariants(@ForAll("schedules") Schedule schedule) {
    Execution execution = runner().run(schedule);
    net.jqwik.api.statistics.Statistics.label("steps")
        .collect(schedule.steps().size() / 10 * 10 + "-" + (schedule.steps().size() / 10 * 10 + 9));
    net.jqwik.api.statistics.Statistics.label("workers").collect(schedule.workers());
    execution.assertHolds();
  }

  /** The schedules tried; override to narrow or widen them. */
  @Provide
  protected Arbitrary<Schedule> schedules() {
    return Schedules.schedules();
  }

  @BeforeProperty
  void open() {
    FINISHED.remove(getClass());
  }

  /**
   * Returns this class's runner, started on first use.
   *
   * @throws IllegalStateException if this class's properties have finished
   */
  protected ScheduleRunner runner() {
    if (FINISHED.contains(getClass())) {
      throw new IllegalStateException(getClass().getSimpleName() + " has finished");
    }
    return RUNNERS.computeIfAbsent(
        getClass(), c -> new ScheduleRunner(PostgresFixture.get(), backend(), schemaFor(c)));
  }

  @AfterContainer
  static void stopWorkers() {
    FINISHED.addAll(RUNNERS.keySet());
    List<ScheduleRunner> runners = new ArrayList<>(RUNNERS.values());
    RUNNERS.clear();
    RuntimeException first = null;
    for (ScheduleRunner runner : runners) {
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

  private static String schemaFor(Class<?> type) {
    String name = type.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return ("props_" + name).substring(0, Math.min(60, 6 + name.length()));
  }
}
