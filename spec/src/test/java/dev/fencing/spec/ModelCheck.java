package dev.fencing.spec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The assertions of the model tests on one TLC run: a configuration passes (TLC checked the whole
 * state space and found no error), or it is caught (TLC reports the named property violated, with a
 * counterexample). Each prints TLC's summary line for the build log.
 */
final class ModelCheck {

  private ModelCheck() {}

  /** TLC checks {@code config} of {@code spec} completely and finds no error. */
  static TlcRun passes(String spec, String config, TlcRun.Size size) throws Exception {
    TlcRun run = TlcRun.check(spec, config, size);
    System.out.println(run.summary());
    assertThat(run.passed()).as("TLC on %s:%n%s", config, run.tail()).isTrue();
    assertThat(run.exitCode()).as("TLC's exit code on %s", config).isZero();
    assertThat(run.distinctStates()).as("distinct states of %s", config).isPositive();
    return run;
  }

  /** Passes, and TLC checked the liveness properties on the whole state space. */
  static TlcRun passesWithLiveness(String spec, String config, TlcRun.Size size) throws Exception {
    TlcRun run = passes(spec, config, size);
    assertThat(run.output()).contains("Checking temporal properties for the complete state space");
    return run;
  }

  /**
   * TLC finds a counterexample to {@code property} in {@code config} of {@code spec}, a broken
   * variant: breadth first, so within a few hundred states ({@link TlcRun.Size#SMALL}).
   */
  static TlcRun violates(String spec, String config, String property) throws Exception {
    TlcRun run = TlcRun.check(spec, config, TlcRun.Size.SMALL);
    System.out.println(run.summary());
    assertThat(run.violated()).as("TLC on %s:%n%s", config, run.tail()).contains(property);
    assertThat(run.exitCode()).as("TLC's exit code on %s", config).isNotZero();
    assertThat(run.traceLength()).as("counterexample of %s", config).isGreaterThan(1);
    return run;
  }
}
