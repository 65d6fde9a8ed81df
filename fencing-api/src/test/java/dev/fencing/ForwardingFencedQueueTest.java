package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every method of {@link FencedQueue}, its default methods included (a method added to the
 * interface later too), is passed to the delegate with the same arguments, and the delegate's
 * answer or exception comes back unchanged: a default method left to the interface would run the
 * interface's fallback (one commit per job instead of the delegate's one statement) instead.
 */
class ForwardingFencedQueueTest {

  private static final class Forwarding extends ForwardingFencedQueue {
    Forwarding(FencedQueue delegate) {
      super(delegate);
    }
  }

  @Test
  void everyMethodOfTheInterfaceIsForwardedWithItsArgumentsAndItsAnswer() throws Exception {
    for (Method method : FencedQueue.class.getMethods()) {
      if (Modifier.isStatic(method.getModifiers())
          || Arrays.asList(method.getParameterTypes()).contains(JobType.class)) {
        continue; // the typed methods go through the raw ones: see the test below
      }
      assertThat(
              ForwardingFencedQueue.class
                  .getMethod(method.getName(), method.getParameterTypes())
                  .getDeclaringClass())
          .as("%s is forwarded, not left to the interface", method)
          .isEqualTo(ForwardingFencedQueue.class);

      Object answer = answerFor(method.getReturnType());
      List<Object[]> calls = new ArrayList<>();
      FencedQueue delegate =
          (FencedQueue)
              Proxy.newProxyInstance(
                  FencedQueue.class.getClassLoader(),
                  new Class<?>[] {FencedQueue.class},
                  (proxy, m, args) -> {
                    if (m.getDeclaringClass() == Object.class) {
                      return m.getName().equals("toString") ? "delegate" : m.invoke(this, args);
                    }
                    assertThat(m).isEqualTo(method);
                    calls.add(args == null ? new Object[0] : args);
                    return answer;
                  });
      Object[] args = argumentsFor(method.getParameterTypes());
      Object returned = method.invoke(new Forwarding(delegate), args);

      assertThat(calls).as(method.toString()).hasSize(1);
      assertThat(calls.getFirst()).as(method.toString()).containsExactly(args);
      if (method.getReturnType() != void.class) {
        assertThat(returned).as(method.toString()).isSameAs(answer);
      }
    }
  }

  @Test
  void aTypedCallIsEncodedWithTheDelegatesCodecAndGoesThroughThisQueuesRawMethod() {
    JobCodec upper =
        new JobCodec() {
          @Override
          public String encode(Object value) {
            return "\"" + value.toString().toUpperCase(java.util.Locale.ROOT) + "\"";
          }

          @Override
          public <T> T decode(String json, Class<T> type) {
            return type.cast(json.replace("\"", "").toLowerCase(java.util.Locale.ROOT));
          }
        };
    List<String> delegated = new ArrayList<>();
    FencedQueue delegate =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                (proxy, m, args) -> {
                  delegated.add(m.getName());
                  return switch (m.getName()) {
                    case "codec" -> upper;
                    case "enqueue" -> 7L;
                    default -> throw new AssertionError(m);
                  };
                });
    List<String> raw = new ArrayList<>();
    ForwardingFencedQueue watching =
        new ForwardingFencedQueue(delegate) {
          @Override
          public long enqueue(String queue, String payload) {
            raw.add(queue + " " + payload);
            return super.enqueue(queue, payload);
          }
        };
    record Word(String text) {
      @Override
      public String toString() {
        return text;
      }
    }
    JobType<Word, Void> type = JobType.of("q", Word.class, Void.class);

    assertThat(watching.enqueue(type, new Word("hi"))).isEqualTo(7L);
    assertThat(raw).containsExactly("q \"HI\"");
    assertThat(delegated).containsExactly("codec", "enqueue");
  }

  @Test
  void whatTheDelegateThrowsComesBackUnchanged() {
    StoreUnavailableException down = new StoreUnavailableException("down");
    FencedQueue failing =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                (proxy, m, args) -> {
                  throw down;
                });
    assertThatThrownBy(() -> new Forwarding(failing).claim("q", "w", Duration.ofSeconds(1)))
        .isSameAs(down);
  }

  @Test
  void itNamesItsDelegateAndRefusesNone() {
    FencedQueue named =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                (proxy, m, args) -> m.getName().equals("toString") ? "the real one" : null);
    assertThat(new Forwarding(named)).hasToString("Forwarding[the real one]");
    assertThatThrownBy(() -> new Forwarding(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
  }

  /** A distinct value of {@code type}, so that the answer passed back is known to be the same. */
  private static Object answerFor(Class<?> type) {
    if (type == long.class) {
      return 42L;
    }
    if (type == boolean.class) {
      return true;
    }
    if (type == Optional.class) {
      return Optional.of("answer");
    }
    return argumentFor(type);
  }

  private static Object[] argumentsFor(Class<?>[] types) {
    return Arrays.stream(types).map(ForwardingFencedQueueTest::argumentFor).toArray();
  }

  private static Object argumentFor(Class<?> type) {
    if (type == String.class) {
      return "arg";
    }
    if (type == int.class) {
      return 7;
    }
    if (type == long.class) {
      return 9L;
    }
    if (type == Duration.class) {
      return Duration.ofSeconds(3);
    }
    if (type == List.class) {
      return new ArrayList<>(List.of("a list"));
    }
    if (type == Lease.class) {
      return new Lease(5, "w", Epoch.of(2), Instant.EPOCH);
    }
    if (type == KeyedJob.class) {
      return new KeyedJob("k", "{}");
    }
    if (type == JobOptions.class) {
      return JobOptions.ofPriority(4);
    }
    if (type == QueueLimits.class) {
      return QueueLimits.maxRunning(5);
    }
    if (type == CancelResult.class) {
      return new CancelResult.NotFound(5);
    }
    if (type == Enqueued.class) {
      return new Enqueued(5, "k", true);
    }
    if (type == QueueDepth.class) {
      return new QueueDepth(1, 2, 3);
    }
    if (type == FencedOutcome.Accepted.class) {
      return new FencedOutcome.Accepted("5", Epoch.of(2), false);
    }
    if (type == JobOptions.class) {
      return JobOptions.ofPriority(3).withDelay(Duration.ofMinutes(1));
    }
    if (type == QueueLimits.class) {
      return QueueLimits.maxRunning(9);
    }
    if (type == CancelResult.class) {
      return new CancelResult.NotFound(9);
    }
    if (type == void.class) {
      return null;
    }
    if (type == JobCodec.class) {
      return JobCodec.rawJson();
    }
    throw new AssertionError("no sample value of " + type + ": add one");
  }
}
