/**
 * The PostgreSQL backend. Only {@code dev.fencing.postgres} and {@code dev.fencing.postgres.admin}
 * (the operators' view) are exported; jOOQ, Dagger and Resilience4j stay inside.
 */
module dev.fencing.postgres {
  requires transitive dev.fencing.api;
  requires transitive java.sql;
  requires static org.jspecify;
  requires static java.compiler;
  requires org.jooq;
  requires dagger;
  requires jakarta.inject;
  requires io.github.resilience4j.core;
  requires io.github.resilience4j.retry;
  requires org.postgresql.jdbc;
  requires org.slf4j;

  exports dev.fencing.postgres;
  exports dev.fencing.postgres.admin;

  opens dev.fencing.postgres.internal.jooq.tables.records to
      org.jooq;
}
