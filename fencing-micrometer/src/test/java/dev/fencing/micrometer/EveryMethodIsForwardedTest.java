package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.receiver.Receivers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decorators implement every method of the interfaces they wrap, default methods included (by
 * themselves or through the forwarding base they extend), so a backend's own implementation (one
 * statement for a batch, an outbox) is always the one that runs. A method added to an interface
 * fails this test until the decorator forwards it.
 */
class EveryMethodIsForwardedTest {

  private final FencingMetrics metrics = FencingMetrics.builder(new SimpleMeterRegistry()).build();

  @Test
  void theMeteredQueueOverridesEveryMethodOfFencedQueue() {
    FencedQueue metered = metrics.queue(neverCalled());
    assertThat(notOverridden(FencedQueue.class, metered.getClass())).isEmpty();
  }

  @Test
  void theMeteredReceiverOverridesEveryMethodOfFencedReceiver() {
    FencedReceiver metered = metrics.receiver(Receivers.inMemory());
    assertThat(notOverridden(FencedReceiver.class, metered.getClass())).isEmpty();
  }

  private static List<String> notOverridden(Class<?> api, Class<?> decorator) {
    return Arrays.stream(api.getMethods())
        .filter(m -> !Modifier.isStatic(m.getModifiers()))
        .filter(m -> !declares(decorator, m))
        .map(Method::toGenericString)
        .toList();
  }

  /**
   * Whether a class, the decorator or one it extends (the metered queue extends {@link
   * dev.fencing.ForwardingFencedQueue}, which forwards what it does not meter), implements {@code
   * method}: one left to the interface's default would not reach the backend's own.
   */
  private static boolean declares(Class<?> type, Method method) {
    try {
      return !type.getMethod(method.getName(), method.getParameterTypes())
          .getDeclaringClass()
          .isInterface();
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** A queue never called: the test reads the decorator's class only. */
  private static FencedQueue neverCalled() {
    return (FencedQueue)
        Proxy.newProxyInstance(
            FencedQueue.class.getClassLoader(),
            new Class<?>[] {FencedQueue.class},
            (proxy, method, args) -> {
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
