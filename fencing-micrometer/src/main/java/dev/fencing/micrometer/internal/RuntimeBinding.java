package dev.fencing.micrometer.internal;

import dev.fencing.micrometer.RuntimeMetrics;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.FencedWorkers.Stats;
import dev.fencing.runtime.WorkOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

/** The meters of one runtime: its stats read on publish, and its fenced-off outcomes counted. */
public final class RuntimeBinding implements RuntimeMetrics {

  private static final CounterFamily CLAIMED =
      CounterFamily.single("fencing.runtime.jobs.claimed", "Jobs claimed");
  private static final CounterFamily ENDED =
      new CounterFamily("fencing.runtime.jobs.ended", "Claims ended, by outcome", "outcome");
  private static final CounterFamily STATEMENTS =
      new CounterFamily(
          "fencing.runtime.statements",
          "Statements the runtime sent to the store, by kind",
          "kind");
  private static final CounterFamily RENEWED =
      CounterFamily.single("fencing.runtime.leases.renewed", "Leases renewed by the heartbeat");
  private static final CounterFamily ERRORS =
      new CounterFamily(
          "fencing.runtime.errors",
          "Failures the runtime survived: store statements that failed, outcome listeners that threw",
          "source");
  private final Instruments meters;
  private final Tags tags;
  private final CopyOnWriteArrayList<Meter> registered = new CopyOnWriteArrayList<>();
  private final AtomicBoolean bound = new AtomicBoolean();
  private volatile boolean closed;

  public RuntimeBinding(Instruments meters, String name) {
    this.meters = meters;
    this.tags = Tags.of("runtime", name);
  }

  @Override
  public void accept(WorkOutcome outcome) {
    if (closed || !(outcome instanceof WorkOutcome.FencedOff fencedOff)) {
      return;
    }
    Counter counter =
        meters.counter(
            "fencing.runtime.fenced.off",
            "Claims of the runtime fenced off, by the stage where the refusal came and its reason",
            tags.and(
                "stage",
                fencedOff.stage().name().toLowerCase(Locale.ROOT),
                "reason",
                Instruments.reason(fencedOff.refusal())));
    registered.addIfAbsent(counter);
    counter.increment();
  }

  @Override
  public RuntimeMetrics bind(FencedWorkers workers, String queue) {
    Objects.requireNonNull(workers, "workers");
    Objects.requireNonNull(queue, "queue");
    if (!workers.queues().contains(queue)) {
      throw new IllegalArgumentException(
          "queue must be one the workers run, " + workers.queues() + ", but was '" + queue + "'");
    }
    if (!bound.compareAndSet(false, true)) {
      throw new IllegalStateException("a queue is bound to these meters already");
    }
    count(CLAIMED, "", workers, queue, Stats::claimed);
    count(ENDED, "completed", workers, queue, Stats::completed);
    count(ENDED, "fenced_off", workers, queue, Stats::fencedOff);
    count(ENDED, "failed", workers, queue, Stats::failed);
    count(ENDED, "released", workers, queue, Stats::released);
    count(ENDED, "abandoned", workers, queue, Stats::abandoned);
    count(STATEMENTS, "claim", workers, queue, Stats::claimStatements);
    count(STATEMENTS, "commit", workers, queue, Stats::commitStatements);
    count(STATEMENTS, "renew", workers, queue, Stats::renewStatements);
    count(RENEWED, "", workers, queue, Stats::renewed);
    count(ERRORS, "store", workers, queue, Stats::storeErrors);
    count(ERRORS, "callback", workers, queue, Stats::callbackErrors);
    registered.add(
        Gauge.builder("fencing.runtime.jobs.in.flight", workers, w -> stats(w, queue).inFlight())
            .description("Claims not yet ended: waiting for a thread, running, or committing")
            .tags(meters.common)
            .tags(tags)
            .register(meters.registry));
    return this;
  }

  @Override
  public void close() {
    closed = true;
    for (Meter meter : registered) {
      meters.registry.remove(meter);
    }
    registered.clear();
  }

  private void count(
      CounterFamily family,
      String value,
      FencedWorkers workers,
      String queue,
      ToLongFunction<Stats> count) {
    registered.add(
        family.register(meters, tags, value, workers, w -> count.applyAsLong(stats(w, queue))));
  }

  private static Stats stats(FencedWorkers workers, String queue) {
    return workers.stats().get(queue);
  }
}
