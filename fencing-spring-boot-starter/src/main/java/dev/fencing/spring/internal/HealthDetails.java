package dev.fencing.spring.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * More details for the {@code fencing} health indicator, from a part of the starter that may be
 * absent (the scheduler, without fencing-schedule on the class path). Details only: they never make
 * the indicator DOWN.
 */
interface HealthDetails {

  /** The key the details appear under. */
  String key();

  /** Returns the details now; empty when there is nothing to report. */
  Map<String, Object> details();

  /**
   * Returns the components of {@code stats} (a record of counts: the runtime's, maintenance's, the
   * relay's, the scheduler's) by name, in their order: a new count shows without a change here.
   */
  static Map<String, Object> components(Record stats) {
    Map<String, Object> details = new LinkedHashMap<>();
    for (RecordComponent c : stats.getClass().getRecordComponents()) {
      try {
        details.put(c.getName(), c.getAccessor().invoke(stats));
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read " + c.getName() + " of " + stats, e);
      }
    }
    return details;
  }
}
