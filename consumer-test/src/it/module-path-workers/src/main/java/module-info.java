/**
 * A user's application on the module path that runs its workers on the test kit's in-memory queue:
 * the kit is an automatic module, the api and the runtime are named ones. Its typed jobs' codec is
 * fencing-jackson's, which {@code JobCodec.discover()} finds as a provider of {@code
 * dev.fencing.JobCodec}; Jackson reads and makes the records of this module's package only because
 * it is open to Jackson's module (an {@code exports} would do for public records only).
 */
module example.workers {
  requires dev.fencing.runtime;
  requires dev.fencing.testkit;
  // not for the codec, which is found as a service, but so that javac knows the module opened to
  requires dev.fencing.jackson;

  opens example.workers to
      tools.jackson.databind;
}
