package dev.fencing;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A queue's limits, kept by the store so that every process claiming from the queue obeys the same
 * ones (see {@link FencedQueue#setLimits}). Immutable; start from {@link #NONE} or one of the
 * factories, and combine with the withers.
 *
 * <p><b>Running limit</b> ({@link #maxRunning(int)}). At most {@code maxRunning} jobs of the queue
 * hold a <em>valid</em> lease at any moment, across every process: a lease counts while it has not
 * run out and its job still runs under it. A worker that stalls past its lease (a zombie) stops
 * counting when its lease runs out, so a healthy worker may take its place, and the zombie's late
 * writes are refused as always. The limit holds whatever stalls, dies or fails over, because claims
 * count and renewals extend leases under one lock per queue in the store; it is never counted in
 * the worker.
 *
 * <p><b>Group limits</b> ({@link #withMaxRunningPerGroup(int)}, {@link #withFifoPerGroup()}). A job
 * enqueued with {@link JobOptions#withGroup(String) a group} ("customer 42") counts against its
 * group from its claim until it <em>ends or is given back</em> (completed, failed for good,
 * cancelled, released, or failed to wait for a retry): a job whose lease ran out still holds its
 * group's place, and is taken over before any other job of its group starts. So a group limit is
 * never exceeded by the group's jobs under way, valid leases or not, and so never by valid leases
 * either. With FIFO, each group's jobs start in the order they were enqueued: only the group's
 * oldest waiting job (its head) may start, one per claim, and a head waiting for its retry time
 * holds its group back. "One at a time per customer, in order" is {@code
 * QueueLimits.NONE.withMaxRunningPerGroup(1).withFifoPerGroup()}.
 *
 * <p><b>Rate limits</b> ({@link #withRate(int, Duration)}, {@link #withRatePerGroup(int,
 * Duration)}). At most {@code starts} hand-outs per {@code per}, as a token bucket kept in the
 * store: it holds at most {@code starts} tokens, refills evenly over {@code per} (by the store's
 * clock), and every job a claim hands out takes one (a takeover of an expired lease too). The
 * queue's rate counts every hand-out; a group's counts its jobs' starts from waiting. A claim that
 * finds no token answers fewer jobs or none, and the workers' next poll tries again.
 *
 * <p><b>Priority aging</b> ({@link #withPriorityAging(Duration)}). Without it a queue's order is
 * strict: priority, then ready time, then age, so a steady stream of higher priorities delays lower
 * ones without end. With an aging of {@code A}, a job of priority {@code p} is served as if it had
 * become ready {@code p × A} earlier (ties by age): a job of priority 0 waits behind one of
 * priority 10 that became ready after it for at most {@code 10 × A}, and never starves. Aging is an
 * order, not a limit: it takes no lock.
 *
 * <p>Limits change while the queue runs: the next claim obeys them, and lowering one ends no lease.
 *
 * @since 0.1
 */
public final class QueueLimits {

  /** The largest running limit, of a queue or of a group. */
  public static final int MAX_RUNNING = 1_000_000;

  /** The largest number of starts of a rate. */
  public static final int MAX_STARTS = 1_000_000;

  /** The shortest window of a rate. */
  public static final Duration MIN_PER = Duration.ofMillis(1);

  /** The longest window of a rate. */
  public static final Duration MAX_PER = Duration.ofDays(1);

  /** The longest priority aging. */
  public static final Duration MAX_AGING = Duration.ofDays(1);

  /** No limit. */
  public static final QueueLimits NONE = new QueueLimits(0, null, 0, null, false, null);

  /**
   * At most {@code starts} hand-outs per {@code per}.
   *
   * @param starts 1 .. {@value QueueLimits#MAX_STARTS}
   * @param per {@link QueueLimits#MIN_PER} .. {@link QueueLimits#MAX_PER}, to the microsecond
   */
  public record Rate(int starts, Duration per) {

    /**
     * @throws IllegalArgumentException naming the parameter and value when one is out of range
     */
    public Rate {
      Validate.between("starts", starts, 1, MAX_STARTS);
      Validate.between("per", per, MIN_PER, MAX_PER);
      if (per.toNanos() % 1_000 != 0) {
        throw new IllegalArgumentException(
            "per must be a whole number of microseconds, but was " + per);
      }
    }

    /**
     * Reads a rate written {@code starts/window}, the window a whole number with a unit {@code us},
     * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}, or an ISO-8601 duration: {@code
     * 100/1s}, {@code 10/1m}, {@code 5/PT0.5S}. {@link #toString()} writes this form.
     *
     * @throws IllegalArgumentException naming {@code text} when it is not a rate, or as {@link
     *     Rate} when a part is out of range
     */
    public static Rate parse(String text) {
      Matcher m = text == null ? null : FORM.matcher(text.strip());
      if (m == null || !m.matches()) {
        throw new IllegalArgumentException(
            "rate must be written starts/window (e.g. 100/1s, 10/1m, 5/PT0.5S), but was "
                + Validate.quote(text));
      }
      Duration per;
      try {
        per =
            m.group(3) != null
                ? Duration.of(Long.parseLong(m.group(3)), unit(m.group(4)))
                : Duration.parse(m.group(5));
        return new Rate(Integer.parseInt(m.group(1)), per);
      } catch (NumberFormatException | DateTimeParseException e) {
        throw new IllegalArgumentException(
            "rate must be written starts/window (e.g. 100/1s, 10/1m, 5/PT0.5S), but was "
                + Validate.quote(text),
            e);
      }
    }

    private static final Pattern FORM =
        Pattern.compile("([0-9]{1,9})/(([0-9]{1,12})(us|ms|s|m|h|d)|([Pp][A-Za-z0-9.]{1,40}))");

    private static TemporalUnit unit(String unit) {
      return switch (unit) {
        case "us" -> ChronoUnit.MICROS;
        case "ms" -> ChronoUnit.MILLIS;
        case "s" -> ChronoUnit.SECONDS;
        case "m" -> ChronoUnit.MINUTES;
        case "h" -> ChronoUnit.HOURS;
        default -> ChronoUnit.DAYS;
      };
    }

    /** {@code starts/window}, the window in its largest whole unit: {@code 100/1s}. */
    @Override
    public String toString() {
      long micros = per.toNanos() / 1_000;
      String[] units = {"d", "h", "m", "s", "ms"};
      long[] sizes = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
      for (int i = 0; i < units.length; i++) {
        if (micros % sizes[i] == 0) {
          return starts + "/" + micros / sizes[i] + units[i];
        }
      }
      return starts + "/" + micros + "us";
    }
  }

  /** 0 = none. */
  private final int maxRunning;

  private final @Nullable Rate rate;

  /** 0 = none. */
  private final int maxRunningPerGroup;

  private final @Nullable Rate ratePerGroup;
  private final boolean fifoPerGroup;
  private final @Nullable Duration aging;

  private QueueLimits(
      int maxRunning,
      @Nullable Rate rate,
      int maxRunningPerGroup,
      @Nullable Rate ratePerGroup,
      boolean fifoPerGroup,
      @Nullable Duration aging) {
    this.maxRunning = maxRunning;
    this.rate = rate;
    this.maxRunningPerGroup = maxRunningPerGroup;
    this.ratePerGroup = ratePerGroup;
    this.fifoPerGroup = fifoPerGroup;
    this.aging = aging;
  }

  /**
   * At most {@code maxRunning} jobs of the queue running under valid leases.
   *
   * @throws IllegalArgumentException if {@code maxRunning} is outside 1 .. {@value #MAX_RUNNING}
   */
  public static QueueLimits maxRunning(int maxRunning) {
    return NONE.withMaxRunning(maxRunning);
  }

  /**
   * A copy with the running limit {@code maxRunning}.
   *
   * @throws IllegalArgumentException as {@link #maxRunning(int)}
   */
  public QueueLimits withMaxRunning(int maxRunning) {
    return new QueueLimits(
        Validate.between("maxRunning", maxRunning, 1, MAX_RUNNING),
        rate,
        maxRunningPerGroup,
        ratePerGroup,
        fifoPerGroup,
        aging);
  }

  /** A copy without a running limit. */
  public QueueLimits withoutMaxRunning() {
    return new QueueLimits(0, rate, maxRunningPerGroup, ratePerGroup, fifoPerGroup, aging);
  }

  /**
   * A copy in which the queue hands out at most {@code starts} jobs per {@code per}.
   *
   * @throws IllegalArgumentException as {@link Rate}
   */
  public QueueLimits withRate(int starts, Duration per) {
    return new QueueLimits(
        maxRunning, new Rate(starts, per), maxRunningPerGroup, ratePerGroup, fifoPerGroup, aging);
  }

  /** A copy without a rate for the queue. */
  public QueueLimits withoutRate() {
    return new QueueLimits(maxRunning, null, maxRunningPerGroup, ratePerGroup, fifoPerGroup, aging);
  }

  /**
   * A copy in which at most {@code maxRunning} jobs of each group are under way at once.
   *
   * @throws IllegalArgumentException if {@code maxRunningPerGroup} is outside 1 .. {@value
   *     #MAX_RUNNING}
   */
  public QueueLimits withMaxRunningPerGroup(int maxRunningPerGroup) {
    return new QueueLimits(
        maxRunning,
        rate,
        Validate.between("maxRunningPerGroup", maxRunningPerGroup, 1, MAX_RUNNING),
        ratePerGroup,
        fifoPerGroup,
        aging);
  }

  /** A copy without a running limit per group. */
  public QueueLimits withoutMaxRunningPerGroup() {
    return new QueueLimits(maxRunning, rate, 0, ratePerGroup, fifoPerGroup, aging);
  }

  /**
   * A copy in which each group starts at most {@code starts} jobs per {@code per}.
   *
   * @throws IllegalArgumentException as {@link Rate}
   */
  public QueueLimits withRatePerGroup(int starts, Duration per) {
    return new QueueLimits(
        maxRunning, rate, maxRunningPerGroup, new Rate(starts, per), fifoPerGroup, aging);
  }

  /** A copy without a rate per group. */
  public QueueLimits withoutRatePerGroup() {
    return new QueueLimits(maxRunning, rate, maxRunningPerGroup, null, fifoPerGroup, aging);
  }

  /** A copy in which each group's jobs start in the order they were enqueued. */
  public QueueLimits withFifoPerGroup() {
    return new QueueLimits(maxRunning, rate, maxRunningPerGroup, ratePerGroup, true, aging);
  }

  /** A copy in which a group's jobs start by priority, run time and age, as the queue's. */
  public QueueLimits withoutFifoPerGroup() {
    return new QueueLimits(maxRunning, rate, maxRunningPerGroup, ratePerGroup, false, aging);
  }

  /**
   * A copy in which a job of priority {@code p} ranks as if it had become ready {@code p × aging}
   * earlier (see the class comment).
   *
   * @throws IllegalArgumentException if {@code aging} is not between 1 ms and {@link #MAX_AGING},
   *     or not a whole number of microseconds
   */
  public QueueLimits withPriorityAging(Duration aging) {
    Validate.between("aging", aging, MIN_PER, MAX_AGING);
    if (aging.toNanos() % 1_000 != 0) {
      throw new IllegalArgumentException(
          "aging must be a whole number of microseconds, but was " + aging);
    }
    return new QueueLimits(maxRunning, rate, maxRunningPerGroup, ratePerGroup, fifoPerGroup, aging);
  }

  /** A copy with the strict order: priority, then ready time, then age. */
  public QueueLimits withoutPriorityAging() {
    return new QueueLimits(maxRunning, rate, maxRunningPerGroup, ratePerGroup, fifoPerGroup, null);
  }

  /** The priority aging, if one is set. */
  public Optional<Duration> priorityAging() {
    return Optional.ofNullable(aging);
  }

  /** Whether a limit bounds the jobs a claim may take (all but {@link #priorityAging}). */
  public boolean limitsClaims() {
    return maxRunning != 0 || rate != null || limitsGroups();
  }

  /** The running limit, if one is set. */
  public OptionalInt runningLimit() {
    return maxRunning == 0 ? OptionalInt.empty() : OptionalInt.of(maxRunning);
  }

  /** The queue's rate, if one is set. */
  public Optional<Rate> rate() {
    return Optional.ofNullable(rate);
  }

  /** The running limit of each group, if one is set. */
  public OptionalInt runningLimitPerGroup() {
    return maxRunningPerGroup == 0 ? OptionalInt.empty() : OptionalInt.of(maxRunningPerGroup);
  }

  /** The rate of each group, if one is set. */
  public Optional<Rate> ratePerGroup() {
    return Optional.ofNullable(ratePerGroup);
  }

  /** Whether each group's jobs start in the order they were enqueued. */
  public boolean fifoPerGroup() {
    return fifoPerGroup;
  }

  /** Whether any limit of a group is set. */
  public boolean limitsGroups() {
    return maxRunningPerGroup != 0 || ratePerGroup != null || fifoPerGroup;
  }

  /** Whether no limit is set. */
  public boolean isNone() {
    return !limitsClaims() && aging == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QueueLimits other
        && maxRunning == other.maxRunning
        && Objects.equals(rate, other.rate)
        && maxRunningPerGroup == other.maxRunningPerGroup
        && Objects.equals(ratePerGroup, other.ratePerGroup)
        && fifoPerGroup == other.fifoPerGroup
        && Objects.equals(aging, other.aging);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxRunning, rate, maxRunningPerGroup, ratePerGroup, fifoPerGroup, aging);
  }

  @Override
  public String toString() {
    if (isNone()) {
      return "QueueLimits[none]";
    }
    StringBuilder text = new StringBuilder("QueueLimits[");
    if (maxRunning != 0) {
      text.append("maxRunning=").append(maxRunning).append(", ");
    }
    if (rate != null) {
      text.append("rate=").append(rate).append(", ");
    }
    if (maxRunningPerGroup != 0) {
      text.append("maxRunningPerGroup=").append(maxRunningPerGroup).append(", ");
    }
    if (ratePerGroup != null) {
      text.append("ratePerGroup=").append(ratePerGroup).append(", ");
    }
    if (fifoPerGroup) {
      text.append("fifoPerGroup, ");
    }
    if (aging != null) {
      text.append("priorityAging=").append(aging).append(", ");
    }
    text.setLength(text.length() - 2);
    return text.append(']').toString();
  }
}
