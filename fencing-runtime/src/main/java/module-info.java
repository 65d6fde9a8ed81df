/**
 * The worker runtime. Only {@code dev.fencing.runtime} is exported; it depends on the fencing API
 * alone, so it runs on any backend.
 */
module dev.fencing.runtime {
  requires transitive dev.fencing.api;
  requires static org.jspecify;

  exports dev.fencing.runtime;
}
