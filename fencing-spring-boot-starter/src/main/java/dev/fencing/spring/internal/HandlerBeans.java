package dev.fencing.spring.internal;

import dev.fencing.JobType;
import dev.fencing.internal.Validate;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueSettings;
import dev.fencing.spring.OutboxQueueHandler;
import dev.fencing.spring.QueueHandler;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.springframework.beans.factory.ListableBeanFactory;

/** The context's handler beans by queue: one {@link QueueHandler} or {@link OutboxQueueHandler}. */
final class HandlerBeans {

  /** One queue's handler, added to the workers with its runtime's settings. */
  interface Queue {
    void addTo(FencedWorkers.Builder workers, String queue, Consumer<QueueSettings> settings);
  }

  private record Found(String bean, boolean outbox, Queue queue) {}

  private HandlerBeans() {}

  /**
   * Returns each queue's handler, by queue name.
   *
   * @throws IllegalArgumentException if a bean's queue is not a plain identifier, or its type null
   * @throws IllegalStateException if two beans name one queue, naming both
   */
  static Map<String, Queue> byQueue(ListableBeanFactory beans) {
    Map<String, Found> found = new TreeMap<>();
    beans
        .getBeansOfType(QueueHandler.class)
        .forEach(
            (bean, h) ->
                add(
                    found,
                    queueOf(bean, h),
                    new Found(bean, false, (w, q, s) -> register(w, (QueueHandler<?, ?>) h, s))));
    beans
        .getBeansOfType(OutboxQueueHandler.class)
        .forEach(
            (bean, h) ->
                add(found, h.queue(), new Found(bean, true, (w, q, s) -> w.outboxQueue(q, h, s))));
    Map<String, Queue> byQueue = new TreeMap<>();
    found.forEach((name, f) -> byQueue.put(name, f.queue()));
    return byQueue;
  }

  /** The queue of the bean's job type, or an error naming the bean. */
  private static String queueOf(String bean, QueueHandler<?, ?> handler) {
    JobType<?, ?> type = handler.type();
    if (type == null) {
      throw new IllegalArgumentException(
          "type() of the QueueHandler bean '" + bean + "' must be a JobType, but was null");
    }
    return type.queue();
  }

  private static <P, R> void register(
      FencedWorkers.Builder workers, QueueHandler<P, R> handler, Consumer<QueueSettings> settings) {
    workers.queue(handler.type(), handler, settings);
  }

  private static void add(Map<String, Found> found, String queue, Found handler) {
    String kind = handler.outbox() ? "OutboxQueueHandler" : "QueueHandler";
    String name =
        Validate.identifier("queue() of the " + kind + " bean '" + handler.bean() + "'", queue);
    Found other = found.putIfAbsent(name, handler);
    if (other != null) {
      String kinds =
          other.outbox() == handler.outbox() ? kind : "QueueHandler or OutboxQueueHandler";
      throw new IllegalStateException(
          "queue '"
              + name
              + "' must have one "
              + kinds
              + " bean, but had two: '"
              + other.bean()
              + "' and '"
              + handler.bean()
              + "'");
    }
  }
}
