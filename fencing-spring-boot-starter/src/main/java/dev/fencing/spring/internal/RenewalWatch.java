package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Watches the statements one runtime sends through its queue: whether its latest renewal failed
 * (after the queue's own retries) with no statement succeeding since, which the health indicator
 * reports. Every call is passed on unchanged.
 */
final class RenewalWatch {

  /**
   * What the watch saw.
   *
   * @param failing whether the latest renewal failed and no statement of the runtime succeeded
   *     since
   * @param failures renewal statements that failed since start
   * @param lastFailure when the latest one failed, or null
   * @param lastError its exception's message, or null
   */
  record State(
      boolean failing, long failures, @Nullable Instant lastFailure, @Nullable String lastError) {}

  /**
   * Calls that say nothing of the database answering: a wait for work returns in time even when no
   * listening connection could be had.
   */
  private static final Set<String> NOT_STATEMENTS = Set.of("awaitWork", "signalsWork");

  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong lastFailureNanos = new AtomicLong(System.nanoTime());
  private final AtomicLong lastSuccessNanos = new AtomicLong(lastFailureNanos.get());
  private final AtomicReference<@Nullable Instant> lastFailure = new AtomicReference<>();
  private final AtomicReference<@Nullable String> lastError = new AtomicReference<>();

  /** Returns {@code queue} watched: every call passed to it, renewals and successes noted. */
  FencedQueue watch(FencedQueue queue) {
    InvocationHandler handler = (proxy, method, args) -> call(proxy, queue, method, args);
    return (FencedQueue)
        Proxy.newProxyInstance(
            FencedQueue.class.getClassLoader(), new Class<?>[] {FencedQueue.class}, handler);
  }

  private @Nullable Object call(
      Object proxy, FencedQueue queue, Method method, @Nullable Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "toString" -> "RenewalWatch[" + queue + "]";
        case "hashCode" -> System.identityHashCode(this);
        case "equals" -> args != null && proxy == args[0];
        default -> method.invoke(queue, args);
      };
    }
    boolean renewal = method.getName().startsWith("renew");
    try {
      Object result = method.invoke(queue, args);
      if (!NOT_STATEMENTS.contains(method.getName())) {
        lastSuccessNanos.set(System.nanoTime());
      }
      return result;
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (renewal && cause instanceof RuntimeException) {
        failures.incrementAndGet();
        lastFailure.set(Instant.now());
        lastError.set(String.valueOf(cause.getMessage()));
        lastFailureNanos.set(System.nanoTime());
      }
      throw cause;
    }
  }

  /** Returns what the watch saw so far. */
  State state() {
    long count = failures.get();
    boolean failing = count > 0 && lastFailureNanos.get() - lastSuccessNanos.get() > 0;
    return new State(failing, count, lastFailure.get(), lastError.get());
  }
}
