package dev.fencing.benchmarks;

/**
 * One row of {@link ScaleOutBenchmark}, summed over its worker JVMs and measured over the same
 * window in all of them. CPU times are in nanoseconds; the backends' is -1 when the server is not
 * on this machine, PgBouncer's -1 for a row without it. Claim times are of each claim call, in ms.
 *
 * @param point what the row ran
 * @param jvms the worker JVMs its runtimes were spread over
 * @param pendingAtEnd jobs pending when the window ended (a deep row that reached 0 ran dry)
 * @param depths the pending counts the shallow rows' producer read over the window ({@link
 *     DepthProducer.Depths#NONE} for a deep row)
 */
record ScaleOutRow(
    ScaleOutPoint point,
    int jvms,
    long millis,
    long completed,
    long claimStatements,
    long claimed,
    long commitStatements,
    long emptyClaims,
    long workerCpuNanos,
    long bouncerCpuNanos,
    double claimP50,
    double claimP99,
    long pendingAtEnd,
    DepthProducer.Depths depths,
    PgObserver.Window pg) {

  /**
   * Whether a shallow row's producer kept the queue at half its target or more on average: below
   * that the row measured the producer falling behind, not the claimers.
   */
  boolean producerKept(int target) {
    return point.deep() || depths.reads() == 0 || depths.mean() >= target / 2.0;
  }

  double jobsPerSecond() {
    return completed * 1000.0 / millis;
  }

  /** Microseconds of {@code nanos} per completed job; NaN when unknown or nothing completed. */
  double microsPerJob(long nanos) {
    return nanos < 0 || completed == 0 ? Double.NaN : nanos / 1000.0 / completed;
  }

  /** Claim statements per completed job. */
  double claimsPerJob() {
    return completed == 0 ? Double.NaN : (double) claimStatements / completed;
  }

  /** Commit statements per completed job. */
  double commitsPerJob() {
    return completed == 0 ? Double.NaN : (double) commitStatements / completed;
  }

  /** Of all claim statements, the share that returned nothing. */
  double emptyShare() {
    return claimStatements == 0 ? Double.NaN : (double) emptyClaims / claimStatements;
  }
}
