package dev.fencing.micrometer.internal;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.Lease;
import dev.fencing.internal.OutcomeNames;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The meters the decorators share: one registry, the user's common tags, and the tag values every
 * meter agrees on. Meters are looked up on each use; the registry keeps one per name and tags.
 */
public final class Instruments {

  /** The tag value of an operation that returned, or was answered with a refusal. */
  static final String NO_ERROR = "none";

  final MeterRegistry registry;
  final Tags common;

  public Instruments(MeterRegistry registry, Tags common) {
    this.registry = registry;
    this.common = common;
  }

  Clock clock() {
    return registry.config().clock();
  }

  /** Starts timing an operation on the registry's clock. */
  Timer.Sample start() {
    return Timer.start(registry);
  }

  /** Stops {@code sample} into the timer {@code name}, tagged with the error, if any. */
  void stop(
      Timer.Sample sample, String name, String description, Tags tags, @Nullable Throwable error) {
    sample.stop(
        Timer.builder(name)
            .description(description)
            .tags(common)
            .tags(tags)
            .tag("error", errorTag(error))
            .register(registry));
  }

  Counter counter(String name, String description, Tags tags) {
    return Counter.builder(name)
        .description(description)
        .tags(common)
        .tags(tags)
        .register(registry);
  }

  /** Counts a refusal by its reason, at the stage where it came. */
  void fencedOff(FencedOutcome.Refused refusal, String stage) {
    counter(
            "fencing.fenced.off",
            "Fenced writes refused: the epoch that tried had been superseded, its lease expired,"
                + " it never owned the job, or it had finished it differently",
            Tags.of("reason", OutcomeNames.refusal(refusal), "stage", stage))
        .increment();
  }

  /** Counts one commit's outcome: accepted, repeat, refused or invalid. */
  void commitOutcome(CommitOutcome outcome) {
    String tag =
        switch (outcome) {
          case FencedOutcome.Accepted accepted -> accepted.repeat() ? "repeat" : "accepted";
          case FencedOutcome.Refused refused -> {
            fencedOff(refused, "commit");
            yield "refused";
          }
          case CommitOutcome.Invalid invalid -> "invalid";
        };
    counter(
            "fencing.commits",
            "Results committed (accepted, or repeat for a retried commit), refused or invalid",
            Tags.of("outcome", tag))
        .increment();
  }

  /**
   * Records how much of {@code lease} was left, by the registry's (the worker's) clock, when its
   * result was sent to commit; a lease already run out by that clock counts as zero.
   */
  void leaseRemaining(Lease lease) {
    double seconds =
        (lease.expiresAt().toEpochMilli() - clock().wallTime())
            / (double) TimeUnit.SECONDS.toMillis(1);
    DistributionSummary.builder("fencing.lease.remaining")
        .description(
            "Lease time left when a result was sent to commit, judged on the worker's clock: an"
                + " indicator of how close commits run to their lease, never what the store decides")
        .baseUnit("seconds")
        .tags(common)
        .register(registry)
        .record(Math.max(0, seconds));
  }

  /** Returns the exception's simple class name, or {@value #NO_ERROR}: a bounded set of values. */
  static String errorTag(@Nullable Throwable error) {
    if (error == null) {
      return NO_ERROR;
    }
    String simple = error.getClass().getSimpleName();
    return simple.isEmpty() ? error.getClass().getName() : simple;
  }
}
