/**
 * The etcd backend for {@link dev.fencing.ResourceOwnership}. Only {@code dev.fencing.etcd} is
 * exported; jetcd and Dagger stay inside. jetcd ships no module descriptor, so it is required by
 * its automatic module name, {@code jetcd.core}.
 */
module dev.fencing.etcd {
  requires transitive dev.fencing.api;
  requires static org.jspecify;
  requires static java.compiler;
  requires dagger;
  requires jakarta.inject;
  requires jetcd.core;

  exports dev.fencing.etcd;
}
