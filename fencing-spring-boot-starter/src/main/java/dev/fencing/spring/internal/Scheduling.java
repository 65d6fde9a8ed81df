package dev.fencing.spring.internal;

import dev.fencing.runtime.FencedWorkers;
import java.util.List;

/**
 * The scheduler the workers run, built from the context's schedules when fencing-schedule is on the
 * class path ({@link FencingScheduleAutoConfiguration}); the workers never name its types, so they
 * load without that module.
 */
interface Scheduling {

  /** Hands the scheduler, not started, to {@code workers}, which start and stop it. */
  void addTo(FencedWorkers.Builder workers);

  /** Returns the names of its schedules. */
  List<String> names();
}
