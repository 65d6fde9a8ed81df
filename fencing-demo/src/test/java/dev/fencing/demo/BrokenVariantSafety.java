package dev.fencing.demo;

import dev.fencing.testkit.FencingBackend;
import dev.fencing.testkit.ZombieSafetyProperties;

/**
 * The property suite pointed at each broken backend. Named so that Surefire does not run them on
 * their own: {@link PropertiesCatchBrokenVariantsTest} runs them and expects them to fail.
 */
final class BrokenVariantSafety {

  private BrokenVariantSafety() {}

  static class NoCompareAndSet extends ZombieSafetyProperties {
    @Override
    protected Class<? extends FencingBackend> backend() {
      return BrokenVariants.NoCompareAndSet.class;
    }
  }

  static class NoReceiverEpochCheck extends ZombieSafetyProperties {
    @Override
    protected Class<? extends FencingBackend> backend() {
      return BrokenVariants.NoReceiverEpochCheck.class;
    }
  }

  static class NoIncrementOnClaim extends ZombieSafetyProperties {
    @Override
    protected Class<? extends FencingBackend> backend() {
      return BrokenVariants.NoIncrementOnClaim.class;
    }
  }
}
