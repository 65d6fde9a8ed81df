package dev.fencing.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** The load threads of a benchmark window: started together, joined together. */
final class LoadThreads {

  private LoadThreads() {}

  /** Starts {@code count} platform threads, each running {@code body}. */
  static List<Thread> start(int count, Runnable body) {
    List<Thread> threads = new ArrayList<>(count);
    for (int t = 0; t < count; t++) {
      threads.add(Thread.ofPlatform().start(body));
    }
    return threads;
  }

  /** Waits for each of {@code threads} to end. */
  static void join(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }
}
