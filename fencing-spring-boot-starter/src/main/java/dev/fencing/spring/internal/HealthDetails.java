package dev.fencing.spring.internal;

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
}
