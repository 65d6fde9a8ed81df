/**
 * The worker runtime. Only {@code dev.fencing.runtime} is exported; it depends on the fencing API
 * alone, so it runs on any backend, and reads fencing-schedule only when present (a {@code
 * FencedWorkers} given a scheduler).
 */
module dev.fencing.runtime {
  requires transitive dev.fencing.api;
  requires static dev.fencing.schedule;
  requires static org.jspecify;
  requires org.slf4j;

  exports dev.fencing.runtime;
}
