package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The queue contract's power against a compare-and-set that forgets the epoch: it must fail the
 * tests in which the same owner holds two leases of one job (its older lease would still commit),
 * and only those, since the owner check alone catches every other zombie. Here on the
 * update-in-place engine ({@link NoEpochContract}); {@link
 * AppendOnlyContractCatchesNoEpochInCompareAndSetTest} on the append-only one.
 */
class ContractCatchesNoEpochInCompareAndSetTest {

  /** The contract's tests in which one owner holds two leases of one job. */
  static final List<String> SAME_OWNER_TESTS =
      List.of(
          "sameOwnersOlderLeaseIsRefusedAfterItReclaimedTheJob",
          "sameOwnersTwoLeasesOfOneJobInOneCompleteAllGetTheirOwnOutcomesInEitherOrder",
          "sameOwnersTwoLeasesOfOneJobInOneRenewAllGetTheirOwnOutcomesInEitherOrder");

  /** The contract pointed at the broken queue. */
  Class<?> contract() {
    return NoEpochContract.class;
  }

  @Test
  void theSameOwnerTestsFailAndOnlyThose() {
    Events tests = run(selectClass(contract()));

    List<String> failed = names(tests.failed());
    System.out.println("contract tests failed by " + contract().getSimpleName() + ": " + failed);
    assertThat(failed).containsExactlyInAnyOrderElementsOf(SAME_OWNER_TESTS);
    assertThat(names(tests.succeeded()))
        .hasSizeGreaterThan(10)
        .noneMatch(n -> n.startsWith("same"));
  }

  static Events run(DiscoverySelector... selectors) {
    return EngineTestKit.engine("junit-jupiter").selectors(selectors).execute().testEvents();
  }

  static List<String> names(Events events) {
    return events.stream()
        .map(e -> e.getTestDescriptor().getSource().orElseThrow())
        .map(source -> ((MethodSource) source).getMethodName())
        .toList();
  }
}
