package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.fencing.testkit.Invariant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The property suite's power, tested: at its default number of tries it must catch each of the
 * three broken backends, and shrink to a schedule that names the invariant the missing guard
 * protects. The shrunk counterexample is printed.
 */
class PropertiesCatchBrokenVariantsTest {

  static List<Arguments> variants() {
    return List.of(
        Arguments.of(
            BrokenVariantSafety.NoCompareAndSet.class, Invariant.COMMITS_ONLY_BY_CURRENT_OWNER),
        Arguments.of(
            BrokenVariantSafety.NoReceiverEpochCheck.class, Invariant.RECEIVER_KEEPS_NEWEST),
        Arguments.of(BrokenVariantSafety.NoIncrementOnClaim.class, Invariant.EPOCHS_ONLY_GO_UP));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void theDefaultTriesCatchTheBrokenVariant(Class<?> properties, Invariant expected) {
    List<Event> failures =
        EngineTestKit.engine("jqwik")
            .selectors(selectClass(properties))
            .execute()
            .testEvents()
            .failed()
            .list();

    assertThat(failures).as("the property suite must fail for %s", properties).hasSize(1);
    Throwable cause =
        failures
            .getFirst()
            .getPayload(TestExecutionResult.class)
            .flatMap(TestExecutionResult::getThrowable)
            .orElseThrow();
    System.out.println(
        "== shrunk counterexample for " + properties.getSimpleName() + ":\n" + cause.getMessage());
    assertThat(cause).isInstanceOf(AssertionError.class).hasMessageContaining(expected.name());
  }
}
