package dev.fencing.schedule;

/**
 * What happens to a schedule's missed slots. A due slot (after the schedule's mark, at or before
 * the store's clock now) is <em>on time</em> while {@code now - slot <= grace} (see {@link
 * Schedule#grace()}), and <em>missed</em> once later than that: no scheduler enqueued it in time,
 * because none ran (all down, all frozen, the database unreachable). On-time slots are always
 * enqueued; the policy decides the missed ones. Slots a policy does not enqueue are skipped for
 * good: the mark moves past them.
 *
 * @since 0.1
 */
public sealed interface Missed {

  /** See {@link RunOnce}. */
  static Missed runOnce() {
    return new RunOnce();
  }

  /** See {@link RunAll}. */
  static Missed runAll(int cap) {
    return new RunAll(cap);
  }

  /** See {@link Skip}. */
  static Missed skip() {
    return new Skip();
  }

  /**
   * Missed slots collapse into one run: none if an on-time slot is enqueued in the same round (that
   * run stands for them), else the newest missed slot. The default.
   */
  record RunOnce() implements Missed {}

  /**
   * Each missed slot runs, oldest first, up to the {@code cap} newest; older ones are skipped.
   *
   * @param cap between 1 and 1,000
   */
  record RunAll(int cap) implements Missed {
    /**
     * @throws IllegalArgumentException naming {@code cap} and its value
     */
    public RunAll {
      if (cap < 1 || cap > 1_000) {
        throw new IllegalArgumentException("cap must be between 1 and 1000, but was " + cap);
      }
    }
  }

  /** Missed slots are skipped; the schedule resumes with the next on-time slot. */
  record Skip() implements Missed {}
}
