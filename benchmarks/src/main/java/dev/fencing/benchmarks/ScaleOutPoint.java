package dev.fencing.benchmarks;

import dev.fencing.postgres.PostgresFencing;

/**
 * What a row of {@link ScaleOutBenchmark} runs: an engine ("update" or "append"), a queue (deep or
 * shallow), a count of runtimes, a path (through PgBouncer or direct).
 */
record ScaleOutPoint(String engine, boolean deep, int runtimes, boolean bouncer) {

  /** The engine an option names: "append" is the append-only one, anything else the default. */
  static PostgresFencing.Engine engine(String name) {
    return name.equals("append")
        ? PostgresFencing.Engine.APPEND_ONLY
        : PostgresFencing.Engine.UPDATE_IN_PLACE;
  }

  String queueLabel() {
    return deep ? "deep" : "shallow";
  }

  String engineLabel() {
    return engine.equals("append") ? "append-only" : "update in place";
  }
}
