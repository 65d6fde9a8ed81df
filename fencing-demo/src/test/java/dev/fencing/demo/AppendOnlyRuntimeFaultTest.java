package dev.fencing.demo;

/**
 * {@link RuntimeFaultTest} on the append-only engine: the same faults and the same checks, with the
 * workers' queue and the test's on {@link dev.fencing.postgres.PostgresFencing.Engine#APPEND_ONLY}.
 * Its CI form is smaller (600 jobs, 1 fault of each kind); the system properties of {@link
 * RuntimeFaultTest} size it too.
 */
class AppendOnlyRuntimeFaultTest extends RuntimeFaultTest {

  @Override
  Settings settings() {
    return Settings.fromSystemProperties(APPEND_ONLY, 600, 1);
  }
}
