/**
 * The PostgreSQL backend, as published: the jar carries jOOQ relocated into {@code
 * dev.fencing.postgres.internal.shaded}, so this descriptor (which the build puts into the jar in
 * place of {@code src/main/java/module-info.java}'s) requires no jOOQ module, and reads what the
 * relocated jOOQ reads. Only {@code dev.fencing.postgres} and {@code dev.fencing.postgres.admin}
 * are exported; jOOQ, Dagger and Resilience4j stay inside. {@code ShadedModuleDescriptorTest} keeps
 * the two descriptors in step.
 */
module dev.fencing.postgres {
  requires transitive dev.fencing.api;
  requires transitive java.sql;
  requires static org.jspecify;
  requires static java.compiler;
  requires dagger;
  requires jakarta.inject;
  requires io.github.resilience4j.core;
  requires io.github.resilience4j.retry;
  requires org.postgresql.jdbc;
  requires org.slf4j;
  // what the relocated jOOQ reads besides: java.util.logging (its logger without SLF4J), XML
  requires java.logging;
  requires java.xml;

  exports dev.fencing.postgres;
  exports dev.fencing.postgres.admin;
}
