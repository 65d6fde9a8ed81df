/**
 * Calls to services that know nothing of epochs but deduplicate on an idempotency key. Only {@code
 * dev.fencing.keyed} is exported; the HTTP loop stays inside.
 */
module dev.fencing.keyed {
  requires transitive dev.fencing.api;
  requires static org.jspecify;
  requires java.net.http;

  exports dev.fencing.keyed;
}
