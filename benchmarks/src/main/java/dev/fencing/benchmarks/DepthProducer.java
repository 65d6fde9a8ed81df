package dev.fencing.benchmarks;

import dev.fencing.FencedQueue;
import java.util.Collections;

/**
 * A producer thread that keeps a queue at a depth target: whenever fewer than {@code depth} jobs
 * are pending (enqueued and not yet claimed, {@link FencedQueue#depth}), it enqueues the difference
 * in {@code enqueueAll} batches of at most 500 jobs with payload {@code {}}; while the queue is
 * full it looks again every 2 ms.
 */
final class DepthProducer implements AutoCloseable {

  private static final int BATCH = 500;

  private final FencedQueue queue;
  private final String name;
  private final int depth;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long enqueued;

  private DepthProducer(FencedQueue queue, String name, int depth) {
    this.queue = queue;
    this.name = name;
    this.depth = depth;
    this.thread = Thread.ofPlatform().name("depth-producer").daemon().start(this::produce);
  }

  /** Fills {@code name} up to {@code depth} pending jobs and keeps it there until closed. */
  static DepthProducer start(FencedQueue queue, String name, int depth) {
    return new DepthProducer(queue, name, depth);
  }

  /** Jobs enqueued so far. */
  long enqueued() {
    return enqueued;
  }

  private void produce() {
    while (running) {
      long want = depth - queue.depth(name).pending();
      if (want > 0) {
        int n = (int) Math.min(BATCH, want);
        queue.enqueueAll(name, Collections.nCopies(n, "{}"));
        enqueued += n;
      } else {
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join();
  }
}
