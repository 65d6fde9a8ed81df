package dev.fencing.micrometer.internal;

import dev.fencing.internal.OutcomeNames;
import dev.fencing.micrometer.RuntimeMetrics;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;

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
                OutcomeNames.refusal(fencedOff.refusal())));
    registered.addIfAbsent(counter);
    counter.increment();
  }

  @Override
  public RuntimeMetrics bind(FencedWorkers workers, String queue) {
    Objects.requireNonNull(workers, "workers");
    workers.stats(queue);
    if (!bound.compareAndSet(false, true)) {
      throw new IllegalStateException("a queue is bound to these meters already");
    }
    OneQueue runtime = new OneQueue(workers, queue);
    count(CLAIMED, "", runtime, r -> r.stats().claimed());
    count(ENDED, "completed", runtime, r -> r.stats().completed());
    count(ENDED, "fenced_off", runtime, r -> r.stats().fencedOff());
    count(ENDED, "failed", runtime, r -> r.stats().failed());
    count(ENDED, "released", runtime, r -> r.stats().released());
    count(ENDED, "abandoned", runtime, r -> r.stats().abandoned());
    count(STATEMENTS, "claim", runtime, r -> r.stats().claimStatements());
    count(STATEMENTS, "commit", runtime, r -> r.stats().commitStatements());
    count(STATEMENTS, "renew", runtime, r -> r.stats().renewStatements());
    count(RENEWED, "", runtime, r -> r.stats().renewed());
    count(ERRORS, "store", runtime, r -> r.stats().storeErrors());
    count(ERRORS, "callback", runtime, r -> r.stats().callbackErrors());
    registered.add(
        Gauge.builder("fencing.runtime.jobs.in.flight", runtime, r -> r.stats().inFlight())
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
      CounterFamily family, String value, OneQueue runtime, ToDoubleFunction<OneQueue> f) {
    registered.add(family.register(meters, tags, value, runtime, f));
  }

  /** One queue's counters, read when the registry publishes. */
  private record OneQueue(FencedWorkers workers, String queue) {
    QueueStats stats() {
      return workers.stats(queue);
    }
  }
}
