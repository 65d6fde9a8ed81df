package dev.fencing.testkit.fault;

import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.Renewal;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Passes each call to a real queue; a test overrides the calls it wants to break or slow down: a
 * broken variant that removes one guard, a commit that hangs, a renewal that cannot reach the
 * store.
 *
 * <p>Forwarded, as by {@link ForwardingFencedQueue}: every method that works on one job or one call
 * ({@code enqueue}, {@code enqueueAll}, {@code enqueueKeyed}, {@code claim}, {@code claimBatch},
 * {@code renew}, {@code complete(Lease, String)}, {@code fail}, {@code failFinally}, {@code
 * release}, {@code find}, {@code depth}, {@code awaitWork}, {@code signalsWork}). Not forwarded:
 * the batched writes ({@code renewAll}, {@code completeAll}) and the keyed {@code enqueue} of one
 * job run {@link FencedQueue}'s default methods, which loop over {@code renew}, {@code complete}
 * and {@code enqueueKeyed} of this queue, so that an override of one guard reaches them too. A
 * forwarding queue is one without an outbox: a commit with messages throws {@link
 * UnsupportedOperationException}. Override them to forward them.
 *
 * @since 0.1
 */
public class ForwardingQueue extends ForwardingFencedQueue {

  /**
   * This queue as {@link FencedQueue}'s default methods see it: a proxy that runs the interface's
   * own body of a default method, whose calls come back to this queue (its overrides included).
   */
  private final FencedQueue interfaceDefaults;

  /**
   * @throws NullPointerException if {@code delegate} is null
   */
  public ForwardingQueue(FencedQueue delegate) {
    super(delegate);
    this.interfaceDefaults =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                this::callThroughInterface);
  }

  private @Nullable Object callThroughInterface(
      Object proxy, Method method, @Nullable Object[] args) throws Throwable {
    if (method.isDefault() && runsTheInterfaceBody(method)) {
      return InvocationHandler.invokeDefault(proxy, method, args);
    }
    try {
      return method.invoke(this, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Whether {@code method} is one of those this class routes through the interface's own body; any
   * other default method a body calls (the keyed enqueue of {@code enqueue(queue, KeyedJob)}, say)
   * reaches this queue's override, which forwards it.
   */
  private static boolean runsTheInterfaceBody(Method method) {
    try {
      ForwardingQueue.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  @Override
  public Enqueued enqueue(String queue, KeyedJob job) {
    return interfaceDefaults.enqueue(queue, job);
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    return interfaceDefaults.renewAll(leases, leaseLength);
  }

  /**
   * Commits through {@link #complete(Lease, String)} (so that an override of it reaches this too)
   * when there are no messages; a forwarding queue has no outbox, so a non-empty list throws.
   *
   * @throws UnsupportedOperationException if {@code messages} is not empty
   */
  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    if (messages.isEmpty()) {
      return complete(lease, result);
    }
    throw new UnsupportedOperationException(
        getClass().getName() + " has no outbox: it cannot commit messages");
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return interfaceDefaults.completeAll(completions);
  }
}
