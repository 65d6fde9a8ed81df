/**
 * A {@link dev.fencing.JobCodec} on Jackson 3. Only {@code dev.fencing.jackson} is exported; the
 * codec itself lives in its {@code internal} package, which {@link dev.fencing.JobCodec#discover()}
 * finds through the provider declared here.
 */
module dev.fencing.jackson {
  requires transitive dev.fencing.api;
  requires transitive tools.jackson.databind;
  requires tools.jackson.core;
  requires static org.jspecify;

  exports dev.fencing.jackson;

  provides dev.fencing.JobCodec with
      dev.fencing.jackson.internal.JacksonCodec;
}
