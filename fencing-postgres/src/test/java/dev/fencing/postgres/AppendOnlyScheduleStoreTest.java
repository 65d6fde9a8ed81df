package dev.fencing.postgres;

/** {@link ScheduleStoreTest} on the append-only engine. */
class AppendOnlyScheduleStoreTest extends ScheduleStoreTest {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.APPEND_ONLY;
  }

  @Override
  String jobTable() {
    return "fencing_append_job";
  }
}
