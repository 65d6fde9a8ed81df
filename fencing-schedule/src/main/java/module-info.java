/**
 * Recurring jobs, one per slot. Only {@code dev.fencing.schedule} is exported; the cron parser
 * (cron-utils) stays inside, behind a cron string.
 */
module dev.fencing.schedule {
  requires transitive dev.fencing.api;
  requires static org.jspecify;
  requires com.cronutils;
  requires org.slf4j;

  exports dev.fencing.schedule;
}
