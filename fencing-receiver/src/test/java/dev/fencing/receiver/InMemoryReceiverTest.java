package dev.fencing.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.testkit.contract.FencedReceiverContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InMemoryReceiverTest extends FencedReceiverContract {

  @Override
  protected FencedReceiver receiver() {
    return Receivers.inMemory();
  }

  @Override
  protected int deliveriesPerThread() {
    return 5_000;
  }

  /** Escaped NULs and lone surrogates are JSON text; only {@code jsonb} refuses them. */
  @ParameterizedTest(name = "payload={0}")
  @ValueSource(strings = {"\"\\u0000\"", "\"\\ud800\"", "[\"\\udc00\\ud800\"]"})
  void jsonTextThatJsonbRefusesIsAccepted(String payload) {
    FencedReceiver receiver = receiver();

    receiver.deliver("k", Epoch.of(1), payload);

    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload));
  }

  @Test
  void payloadsAreKeptExactlyAsGiven() {
    FencedReceiver receiver = receiver();
    String payload = " {\"b\":1,   \"a\":[true,null], \"a\": 2.50}\n";

    receiver.deliver("k", Epoch.of(1), payload);

    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload));
  }

  /** Jackson's default limits are 1000 levels and 1000 digits; {@code jsonb} takes more. */
  @Test
  void deepNestingAndLongNumbersThatJsonbStoresAreAccepted() {
    FencedReceiver receiver = receiver();
    String deep = "[".repeat(5_000) + "]".repeat(5_000);
    String longNumber = "1" + "0".repeat(5_000);
    String longName = "{\"" + "n".repeat(60_000) + "\": 1}";

    receiver.deliver("deep", Epoch.of(1), deep);
    receiver.deliver("long", Epoch.of(1), longNumber);
    receiver.deliver("name", Epoch.of(1), longName);

    assertThat(receiver.newest("deep").orElseThrow().payload()).isEqualTo(deep);
    assertThat(receiver.newest("long").orElseThrow().payload()).isEqualTo(longNumber);
    assertThat(receiver.newest("name").orElseThrow().payload()).isEqualTo(longName);
  }

  @Test
  void theParsersReasonAndPlaceAreInTheMessage() {
    assertThatThrownBy(() -> receiver().deliver("k", Epoch.of(1), "{\"a\": 1}\n[2]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "payload must be exactly one JSON value (a second value at line 2, column 1), but was"
                + " '{\"a\": 1}\n[2]'");
  }

  @Test
  void anInMemoryReceiverSaysHowManyKeysItHolds() {
    FencedReceiver receiver = receiver();
    receiver.deliver("a", Epoch.of(1), "1");
    receiver.deliver("b", Epoch.of(1), "2");
    receiver.deliver("a", Epoch.of(2), "3");

    assertThat(receiver).hasToString("in-memory receiver (2 keys)");
  }
}
