/**
 * A fenced receiver over HTTP. Only {@code dev.fencing.http} is exported; Jetty, Jackson and
 * Resilience4j stay inside.
 */
module dev.fencing.http {
  requires transitive dev.fencing.api;
  requires static org.jspecify;
  requires java.net.http;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.http;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires com.fasterxml.jackson.core;
  requires io.github.resilience4j.core;
  requires io.github.resilience4j.retry;

  exports dev.fencing.http;
}
