/**
 * Micrometer meters for fencing. Only {@code dev.fencing.micrometer} is exported; the decorators
 * live in its {@code internal} package.
 */
module dev.fencing.micrometer {
  requires transitive dev.fencing.api;
  requires transitive dev.fencing.runtime;
  requires transitive micrometer.core;
  requires static dev.fencing.schedule;
  requires static org.jspecify;

  exports dev.fencing.micrometer;
}
