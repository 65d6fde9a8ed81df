/**
 * A user's application on the module path that runs its workers on the test kit's in-memory queue:
 * the kit is an automatic module, the api and the runtime are named ones.
 */
module example.workers {
  requires dev.fencing.runtime;
  requires dev.fencing.testkit;
}
