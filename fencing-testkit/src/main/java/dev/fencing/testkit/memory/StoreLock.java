package dev.fencing.testkit.memory;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The one lock of an in-memory queue: its store and its outbox both hold it, so that a commit and
 * the messages it writes change together, as in one transaction.
 */
final class StoreLock {

  private final ReentrantLock lock = new ReentrantLock();

  /** Returns what {@code work} returns, run while holding the lock. */
  <T> T locked(Supplier<T> work) {
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code work} while holding the lock. */
  void run(Runnable work) {
    locked(
        () -> {
          work.run();
          return null;
        });
  }
}
