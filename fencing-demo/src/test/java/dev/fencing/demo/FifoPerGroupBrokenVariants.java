package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.QueueLimits;
import javax.sql.DataSource;

/**
 * Backends that drop FIFO per group from the limits they store, on each engine: a queue set to
 * {@code withMaxRunningPerGroup(1).withFifoPerGroup()} keeps one job at a time per group but starts
 * a group's waiting jobs by priority. What this removes is the FIFO order as the claims see it
 * (their {@code GroupLimits.startable} takes the non-FIFO branch), not a line of the engines' code;
 * taking that line out by hand is described in docs/PROPERTIES.md. Only the limits differ: jobs,
 * claims and commits are the engine's own, so {@link FifoPerGroupRunner} runs these on the real
 * engine's workers.
 */
final class FifoPerGroupBrokenVariants {

  private FifoPerGroupBrokenVariants() {}

  /** The update-in-place engine, its queues' limits stored without FIFO per group. */
  public static final class NoFifoPerGroup extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource dataSource, String schema) {
      return withoutFifo(super.queue(dataSource, schema));
    }
  }

  /** The append-only engine, its queues' limits stored without FIFO per group. */
  public static final class AppendOnlyNoFifoPerGroup extends AppendOnlyPostgresBackend {
    @Override
    public FencedQueue queue(DataSource dataSource, String schema) {
      return withoutFifo(super.queue(dataSource, schema));
    }
  }

  private static FencedQueue withoutFifo(FencedQueue real) {
    return new ForwardingFencedQueue(real) {
      @Override
      public QueueLimits setLimits(String queue, QueueLimits limits) {
        return super.setLimits(queue, limits.withoutFifoPerGroup());
      }
    };
  }
}
