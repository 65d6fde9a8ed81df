/** Fenced receivers that need no database: in memory. The PostgreSQL one is in fencing-postgres. */
module dev.fencing.receiver {
  requires transitive dev.fencing.api;
  requires static org.jspecify;
  requires com.fasterxml.jackson.core;

  exports dev.fencing.receiver;
}
