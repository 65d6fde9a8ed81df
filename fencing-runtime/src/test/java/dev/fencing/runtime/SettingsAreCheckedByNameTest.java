package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Bad settings are refused at start, by name and value, before any thread or statement. */
class SettingsAreCheckedByNameTest {

  private static final FencedQueue NO_QUEUE = unreachable(FencedQueue.class);
  private static final FencedReceiver NO_RECEIVER = unreachable(FencedReceiver.class);
  private static final FencedOutbox NO_OUTBOX = unreachable(FencedOutbox.class);
  private static final FencedOutbox.Sender ACCEPT =
      e -> new FencedOutcome.Accepted(e.key(), e.epoch(), false);

  @Test
  void eachSettingOutOfRangeIsNamedWithItsValue() {
    refused(b -> b.queue("Bad-Name"), "queue must be a plain identifier", "'Bad-Name'");
    refused(b -> b.owner(" "), "owner must be non-blank", "' '");
    refused(b -> b.concurrency(0), "concurrency must be between 1 and 10000", "was 0");
    refused(b -> b.prefetch(-2), "prefetch must be between 0 and 10000", "was -2");
    refused(b -> b.batchSize(10_001), "batchSize must be between 1 and 10000", "was 10001");
    refused(b -> b.leaseLength(Duration.ofDays(2)), "leaseLength must be between", "PT48H");
    refused(
        b -> b.leaseLength(Duration.ofSeconds(3)).heartbeatInterval(Duration.ofSeconds(3)),
        "heartbeatInterval must be more than zero and less than leaseLength (PT3S)",
        "was PT3S");
    refused(b -> b.heartbeatInterval(Duration.ZERO), "heartbeatInterval", "was PT0S");
    refused(
        b -> b.minLeaseLeft(Duration.ofSeconds(30)),
        "minLeaseLeft must be less than leaseLength (PT30S)",
        "was PT30S");
    refused(b -> b.retryDelay(Duration.ofSeconds(-1)), "retryDelay must be between", "PT-1S");
    refused(b -> b.drainTimeout(Duration.ofDays(3)), "drainTimeout must be between", "PT72H");
  }

  @Test
  void eachRelaySettingOutOfRangeIsNamedWithItsValue() {
    refused(
        b -> b.relay(NO_OUTBOX, "Mail", ACCEPT),
        "relay destination must be a plain identifier",
        "'Mail'");
    refused(
        b -> b.relay(NO_OUTBOX, "mail", ACCEPT).relay(NO_OUTBOX, "mail", NO_RECEIVER),
        "relay destination must be relayed once, but 'mail' was given twice");
    refused(
        b -> b.relay(NO_OUTBOX, "mail", ACCEPT).relayEvery(Duration.ZERO),
        "relayEvery must be between PT0.001S and PT24H, but was PT0S");
    assertThatThrownBy(() -> builder().relay(null, "mail", ACCEPT))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outbox");
    assertThatThrownBy(() -> builder().relay(NO_OUTBOX, "mail", (FencedOutbox.Sender) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sender");
    assertThatThrownBy(() -> builder().receiver(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("receiver");
  }

  @Test
  void aHandlerIsRequired() {
    assertThatThrownBy(
            () -> QueueRuntime.builder(NO_QUEUE, NO_RECEIVER).queue("q").owner("w").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("handler must be set, but was null");
    assertThatThrownBy(() -> QueueRuntime.builder(NO_QUEUE).queue("q").owner("w").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("handler must be set, but was null");
    assertThatThrownBy(() -> QueueRuntime.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("queue");
  }

  private static QueueRuntime.Builder builder() {
    return QueueRuntime.builder(NO_QUEUE, NO_RECEIVER)
        .queue("q")
        .owner("w")
        .handler((job, cancellation) -> "{}");
  }

  private static void refused(UnaryOperator<QueueRuntime.Builder> setting, String... message) {
    QueueRuntime.Builder builder = builder();
    assertThatThrownBy(() -> setting.apply(builder).start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(message);
  }

  /** A backend that must never be called: settings are checked before anything runs. */
  private static <T> T unreachable(Class<T> type) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (proxy, method, args) -> {
              throw new AssertionError("called " + method.getName() + " before settings passed");
            }));
  }
}
