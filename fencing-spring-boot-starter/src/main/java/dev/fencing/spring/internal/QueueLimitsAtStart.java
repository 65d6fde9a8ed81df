package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.QueueLimits;
import dev.fencing.spring.FencingProperties;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Sets the limits of each queue whose properties say {@code limits.apply=true}, once every bean is
 * built and before the workers start claiming; a queue's limits properties without apply are left
 * to the store, which keeps what another process or an operator set.
 */
final class QueueLimitsAtStart implements SmartInitializingSingleton {

  private static final Log LOG = LogFactory.getLog(QueueLimitsAtStart.class);

  private final FencedQueue queue;
  private final FencingProperties properties;

  QueueLimitsAtStart(FencedQueue queue, FencingProperties properties) {
    this.queue = queue;
    this.properties = properties;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (Map.Entry<String, FencingProperties.Queue> e : properties.queues().entrySet()) {
      FencingProperties.Limits limits = e.getValue().limits();
      if (limits == null) {
        continue;
      }
      String name = e.getKey();
      if (!limits.apply()) {
        LOG.info(
            "fencing.queues."
                + name
                + ".limits not applied (apply is false): queue "
                + name
                + " keeps the limits the store has");
        continue;
      }
      QueueLimits wanted = limits.queueLimits();
      QueueLimits before = queue.setLimits(name, wanted);
      LOG.info(
          "fencing.queues." + name + ".limits applied: " + wanted + " (it had " + before + ")");
    }
  }
}
