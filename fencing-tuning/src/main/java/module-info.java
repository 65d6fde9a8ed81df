/** The lease model: how a lease length meets worker pauses. No dependencies. */
module dev.fencing.tuning {
  requires static org.jspecify;

  exports dev.fencing.tuning;
}
