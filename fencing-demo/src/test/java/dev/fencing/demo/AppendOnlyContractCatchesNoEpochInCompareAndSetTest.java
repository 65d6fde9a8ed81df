package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;

/**
 * {@link ContractCatchesNoEpochInCompareAndSetTest} on the append-only engine, against {@link
 * AppendOnlyBrokenVariants.NoEpochInCompareAndSet}. {@code verify} runs only the same-owner tests
 * (a few seconds) and expects each to fail; the whole contract, which also shows that every other
 * test passes, takes about 40 s and runs in {@code -Pfull} (tag {@code long}).
 */
class AppendOnlyContractCatchesNoEpochInCompareAndSetTest
    extends ContractCatchesNoEpochInCompareAndSetTest {

  @Override
  Class<?> contract() {
    return NoEpochAppendOnlyContract.class;
  }

  @Test
  void theSameOwnerTestsFail() {
    DiscoverySelector[] sameOwner =
        SAME_OWNER_TESTS.stream()
            .map(test -> selectMethod(contract(), test))
            .toArray(DiscoverySelector[]::new);

    assertThat(names(run(sameOwner).failed()))
        .containsExactlyInAnyOrderElementsOf(SAME_OWNER_TESTS);
  }

  @Override
  @Test
  @Tag("long")
  void theSameOwnerTestsFailAndOnlyThose() {
    super.theSameOwnerTestsFailAndOnlyThose();
  }
}
