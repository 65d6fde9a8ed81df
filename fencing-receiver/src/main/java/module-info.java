/** Fenced receivers: in memory, and on PostgreSQL. */
module dev.fencing.receiver {
  requires transitive dev.fencing.api;
  requires transitive java.sql;
  requires static org.jspecify;
  requires com.fasterxml.jackson.core;
  requires io.github.resilience4j.core;
  requires io.github.resilience4j.retry;
  requires org.slf4j;

  exports dev.fencing.receiver;
}
