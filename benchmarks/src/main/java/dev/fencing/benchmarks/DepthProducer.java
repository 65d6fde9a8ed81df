package dev.fencing.benchmarks;

import dev.fencing.FencedQueue;
import java.util.Collections;

/**
 * A producer thread that keeps a queue at a depth target: whenever fewer than {@code depth} jobs
 * are pending (enqueued and not yet claimed, {@link FencedQueue#depth}), it enqueues the difference
 * in {@code enqueueAll} batches of at most 500 jobs with payload {@code {}}; while the queue is
 * full it looks again every 2 ms. Between {@link #openWindow} and {@link #closeWindow} it keeps
 * what it read, so a row can say whether the queue stayed at its target (the engine was measured)
 * or the producer fell behind (the producer was).
 */
final class DepthProducer implements AutoCloseable {

  private static final int BATCH = 500;

  private final FencedQueue queue;
  private final String name;
  private final int depth;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long enqueued;
  private volatile boolean windowOpen;
  private long reads;
  private long pendingSum;
  private long pendingMin = Long.MAX_VALUE;

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

  /** What the producer read between {@link #openWindow} and {@link #closeWindow}. */
  record Depths(long reads, double mean, long min) {
    static final Depths NONE = new Depths(0, Double.NaN, -1);
  }

  /** Starts keeping the pending counts read. */
  void openWindow() {
    synchronized (this) {
      reads = 0;
      pendingSum = 0;
      pendingMin = Long.MAX_VALUE;
    }
    windowOpen = true;
  }

  /** Stops keeping them and returns their mean and least. */
  Depths closeWindow() {
    windowOpen = false;
    synchronized (this) {
      return reads == 0 ? Depths.NONE : new Depths(reads, (double) pendingSum / reads, pendingMin);
    }
  }

  private void produce() {
    while (running) {
      long pending = queue.depth(name).pending();
      if (windowOpen) {
        synchronized (this) {
          reads++;
          pendingSum += pending;
          pendingMin = Math.min(pendingMin, pending);
        }
      }
      long want = depth - pending;
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
