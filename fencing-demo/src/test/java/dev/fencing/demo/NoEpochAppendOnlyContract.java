package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue contract pointed at {@link AppendOnlyBrokenVariants.NoEpochInCompareAndSet}. Named so
 * that Surefire does not run it on its own: {@link
 * AppendOnlyContractCatchesNoEpochInCompareAndSetTest} runs it and expects the same-owner tests to
 * fail.
 */
class NoEpochAppendOnlyContract extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    FencedQueue real =
        PostgresFencing.builder(schema.sharedPool())
            .schema(schema.name())
            .maxAttempts(3)
            .engine(PostgresFencing.Engine.APPEND_ONLY)
            .build()
            .queue();
    return AppendOnlyBrokenVariants.NoEpochInCompareAndSet.wrap(
        real, schema.sharedPool(), schema.name());
  }
}
