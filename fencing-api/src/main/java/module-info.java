/** The fencing API: no dependencies. */
module dev.fencing.api {
  requires static org.jspecify;

  exports dev.fencing;
}
