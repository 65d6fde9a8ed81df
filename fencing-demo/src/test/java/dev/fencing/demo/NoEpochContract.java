package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue contract pointed at {@link BrokenVariants.NoEpochInCompareAndSet}, on the
 * update-in-place engine whose statements it rewrites ({@link NoEpochAppendOnlyContract} is the
 * append-only one). Named so that Surefire does not run it on its own: {@link
 * ContractCatchesNoEpochInCompareAndSetTest} runs it and expects the same-owner tests to fail.
 */
class NoEpochContract extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    FencedQueue real =
        PostgresFencing.builder(schema.sharedPool())
            .schema(schema.name())
            .maxAttempts(3)
            .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
            .build()
            .queue();
    return BrokenVariants.NoEpochInCompareAndSet.wrap(real, schema.sharedPool(), schema.name());
  }
}
