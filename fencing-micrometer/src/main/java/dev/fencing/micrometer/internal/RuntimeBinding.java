package dev.fencing.micrometer.internal;

import dev.fencing.micrometer.RuntimeMetrics;
import dev.fencing.runtime.FencedRuntime;
import dev.fencing.runtime.WorkOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
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
  public RuntimeMetrics bind(FencedRuntime runtime) {
    Objects.requireNonNull(runtime, "runtime");
    if (!bound.compareAndSet(false, true)) {
      throw new IllegalStateException("a runtime is bound to these meters already");
    }
    counter(
        runtime, "fencing.runtime.jobs.claimed", "Jobs claimed", Tags.empty(), s -> s.claimed());
    ended(runtime, "completed", s -> s.completed());
    ended(runtime, "fenced_off", s -> s.fencedOff());
    ended(runtime, "failed", s -> s.failed());
    ended(runtime, "released", s -> s.released());
    ended(runtime, "abandoned", s -> s.abandoned());
    statements(runtime, "claim", s -> s.claimStatements());
    statements(runtime, "commit", s -> s.commitStatements());
    statements(runtime, "renew", s -> s.renewStatements());
    counter(
        runtime,
        "fencing.runtime.leases.renewed",
        "Leases renewed by the heartbeat",
        Tags.empty(),
        s -> s.renewed());
    errors(runtime, "store", s -> s.storeErrors());
    errors(runtime, "callback", s -> s.callbackErrors());
    maintenance(runtime, "removed", s -> s.jobsRemoved());
    maintenance(runtime, "archived", s -> s.jobsArchived());
    functionCounter(
        runtime,
        "fencing.runtime.maintenance.failures",
        "Maintenance rounds that failed (each logged, then retried later)",
        Tags.empty(),
        r -> r.maintenanceStats().failures());
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

  private void ended(
      FencedRuntime runtime, String outcome, ToDoubleFunction<FencedRuntime.Stats> f) {
    counter(
        runtime,
        "fencing.runtime.jobs.ended",
        "Claims ended, by outcome",
        Tags.of("outcome", outcome),
        f);
  }

  private void maintenance(
      FencedRuntime runtime, String action, ToDoubleFunction<FencedRuntime.MaintenanceStats> f) {
    functionCounter(
        runtime,
        "fencing.runtime.maintenance.jobs",
        "Finished jobs the runtime's retention removed (archived ones included) or archived",
        Tags.of("action", action),
        r -> f.applyAsDouble(r.maintenanceStats()));
  }

  private void statements(
      FencedRuntime runtime, String kind, ToDoubleFunction<FencedRuntime.Stats> f) {
    counter(
        runtime,
        "fencing.runtime.statements",
        "Statements the runtime sent to the store, by kind",
        Tags.of("kind", kind),
        f);
  }

  private void errors(
      FencedRuntime runtime, String source, ToDoubleFunction<FencedRuntime.Stats> f) {
    counter(
        runtime,
        "fencing.runtime.errors",
        "Failures the runtime survived: store statements that failed, outcome listeners that threw",
        Tags.of("source", source),
        f);
  }

  private void counter(
      FencedRuntime runtime,
      String name,
      String description,
      Tags extra,
      ToDoubleFunction<FencedRuntime.Stats> value) {
    functionCounter(runtime, name, description, extra, r -> value.applyAsDouble(r.stats()));
  }

  private void functionCounter(
      FencedRuntime runtime,
      String name,
      String description,
      Tags extra,
      ToDoubleFunction<FencedRuntime> value) {
    registered.add(
        FunctionCounter.builder(name, runtime, value)
            .description(description)
            .tags(meters.common)
            .tags(tags)
            .tags(extra)
            .register(meters.registry));
  }
}
