package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.ZombieSafetyProperties;

/**
 * The property suite, in the shape a downstream project uses it, pointed at each broken backend.
 * Named so that Surefire does not run them on their own: {@link PropertiesCatchBrokenVariantsTest}
 * runs one and expects it to fail.
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

  static class NoEpochInCompareAndSet extends ZombieSafetyProperties {
    @Override
    protected Class<? extends FencingBackend> backend() {
      return BrokenVariants.NoEpochInCompareAndSet.class;
    }
  }
}
