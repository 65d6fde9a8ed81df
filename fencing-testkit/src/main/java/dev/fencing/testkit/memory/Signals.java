package dev.fencing.testkit.memory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The wake-ups of {@link InMemoryQueue#awaitWork}: a count of signals per queue, and per thread the
 * count it saw last, so that a signal between two waits of one thread ends the second at once. A
 * thread's first wait starts from the count it finds, as a listener starts from its LISTEN.
 */
final class Signals {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private final Map<String, Long> counts = new HashMap<>();
  private final ThreadLocal<Map<String, Long>> seen = ThreadLocal.withInitial(HashMap::new);

  /** Wakes every thread waiting on {@code queue}. */
  void signal(String queue) {
    lock.lock();
    try {
      counts.merge(queue, 1L, Long::sum);
      signalled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code queue} is signalled after this thread's last wait on it, or {@code timeout}
   * passes.
   *
   * @return whether a signal came
   */
  boolean await(String queue, Duration timeout) throws InterruptedException {
    Map<String, Long> mine = seen.get();
    lock.lock();
    try {
      long last = mine.computeIfAbsent(queue, q -> count(q));
      long nanos = timeout.toNanos();
      while (count(queue) == last) {
        if (nanos <= 0) {
          return false;
        }
        nanos = signalled.awaitNanos(nanos);
      }
      mine.put(queue, count(queue));
      return true;
    } finally {
      lock.unlock();
    }
  }

  private long count(String queue) {
    return counts.getOrDefault(queue, 0L);
  }
}
