package dev.fencing.demo;

/**
 * {@link RuntimeFaultTest} on the update-in-place engine ({@link RuntimeFaultTest} itself runs the
 * default, append-only one): the same faults and the same checks, with the workers' queue and the
 * test's on {@link dev.fencing.postgres.PostgresFencing.Engine#UPDATE_IN_PLACE}. Its CI form is
 * smaller (600 jobs, 1 fault of each kind); the system properties of {@link RuntimeFaultTest} size
 * it too.
 */
class UpdateInPlaceRuntimeFaultTest extends RuntimeFaultTest {

  @Override
  Settings settings() {
    return Settings.fromSystemProperties(UPDATE_IN_PLACE, 600, 1);
  }
}
