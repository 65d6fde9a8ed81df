package dev.fencing.schedule;

/**
 * What a {@link FencedScheduler} did since it was built. Summed over all schedulers of a schema,
 * {@code enqueued + skipped} is the number of due slots dealt with: each slot is counted by the one
 * scheduler whose advance moved the mark past it.
 *
 * @param enqueued slots whose job this scheduler wrote
 * @param skipped due slots this scheduler's advances moved past without a job (by the missed-slot
 *     policy)
 * @param taken rounds in which another scheduler had moved a schedule's mark first, so this one
 *     wrote nothing (its compare-and-set found the mark moved: a frozen scheduler's late round is
 *     one)
 * @param superseded rounds in which a schedule was stored with a higher revision than this
 *     scheduler's, which therefore enqueued nothing for it
 * @param conflicts rounds in which a schedule was stored with this scheduler's revision but another
 *     definition (a change given without a new revision), so it enqueued nothing for it
 * @param failures rounds, or one schedule's part of a round, that failed (the store unreachable, a
 *     payload the store refuses as JSON); the next round tries again
 * @since 0.1
 */
public record SchedulerStats(
    long enqueued, long skipped, long taken, long superseded, long conflicts, long failures) {

  /**
   * @throws IllegalArgumentException naming a negative count
   */
  public SchedulerStats {
    nonNegative("enqueued", enqueued);
    nonNegative("skipped", skipped);
    nonNegative("taken", taken);
    nonNegative("superseded", superseded);
    nonNegative("conflicts", conflicts);
    nonNegative("failures", failures);
  }

  private static void nonNegative(String name, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, but was " + value);
    }
  }
}
