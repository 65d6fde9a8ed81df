package dev.fencing.postgres;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.JobCodec;
import dev.fencing.KeyedJob;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The parts the front door hands out, each consulting the {@link SchemaGate} before every call: the
 * queue and the schedules run on the graph of the engine the schema records, read at their first
 * call (and refused at every call while this library may not run on the schema's version);
 * ownership, the outbox and receivers check the version until it was found runnable, and go ahead
 * when it cannot be read. Failures of the database are translated below them, where every statement
 * runs ({@code internal.Jdbc}).
 */
final class GatedParts {

  private GatedParts() {}

  /**
   * A part as its calls reach it: each call takes it from {@code part}, which consults the gate.
   */
  private abstract static class Part<T> {
    private final Supplier<T> part;
    private final String shown;

    Part(Supplier<T> part, String shown) {
      this.part = part;
      this.shown = shown;
    }

    /** The part to call now. */
    final T part() {
      return part.get();
    }

    @Override
    public final String toString() {
      return shown;
    }
  }

  /**
   * {@code part}, once the schema's version was checked (see {@link SchemaGate#checkPartVersion}).
   */
  private static <T> Supplier<T> checked(SchemaGate gate, T part) {
    return () -> {
      gate.checkPartVersion();
      return part;
    };
  }

  /** The queue of the schema's engine, taken from the gate at each call. */
  static final class Queue extends ForwardingFencedQueue {
    private final String shown;
    private final JobCodec codec;

    Queue(SchemaGate gate, JobCodec codec) {
      super(() -> gate.engineParts().queue());
      this.shown = "PostgreSQL queue in schema " + gate.schema();
      this.codec = codec;
    }

    @Override
    public JobCodec codec() {
      return codec;
    }

    @Override
    public String toString() {
      return shown;
    }
  }

  /** The schedules of the schema's engine. */
  static final class Schedules extends Part<ScheduleStore> implements ScheduleStore {
    Schedules(SchemaGate gate) {
      super(
          () -> gate.engineParts().schedules(), "PostgreSQL schedules in schema " + gate.schema());
    }

    @Override
    public ScheduleState register(String name, long revision, String definition) {
      return part().register(name, revision, definition);
    }

    @Override
    public ScheduleSnapshot read(Collection<String> names) {
      return part().read(names);
    }

    @Override
    public ScheduleSnapshot list() {
      return part().list();
    }

    @Override
    public SlotAdvance advance(
        String name, long revision, Instant from, Instant to, String queue, List<KeyedJob> jobs) {
      return part().advance(name, revision, from, to, queue, jobs);
    }
  }

  /** Resource ownership, after the check of the schema's version. */
  static final class Owners extends Part<ResourceOwnership> implements ResourceOwnership {
    private final ResourceOwnership ownership;

    Owners(SchemaGate gate, ResourceOwnership ownership) {
      super(checked(gate, ownership), ownership.toString());
      this.ownership = ownership;
    }

    @Override
    public Acquisition acquire(String resource, String owner, Duration leaseLength) {
      return part().acquire(resource, owner, leaseLength);
    }

    @Override
    public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
      return part().renew(ownership, leaseLength);
    }

    @Override
    public FencedOutcome release(Ownership ownership) {
      return part().release(ownership);
    }

    @Override
    public Optional<Acquisition.Held> holder(String resource) {
      return part().holder(resource);
    }

    /** Not checked: it needs no database. */
    @Override
    public void close() {
      ownership.close();
    }
  }

  /** The outbox relay, after the check of the schema's version (its default method calls it). */
  static final class Outbox extends Part<FencedOutbox> implements FencedOutbox {
    Outbox(SchemaGate gate, FencedOutbox outbox) {
      super(checked(gate, outbox), outbox.toString());
    }

    @Override
    public List<Relayed> relay(String destination, Sender sender, int max) {
      return part().relay(destination, sender, max);
    }
  }

  /** A receiver, after the check of the schema's version (its default methods call these). */
  static final class Receiver extends Part<FencedReceiver> implements FencedReceiver {
    Receiver(SchemaGate gate, FencedReceiver receiver) {
      super(checked(gate, receiver), receiver.toString());
    }

    @Override
    public FencedOutcome deliver(String key, Epoch epoch, String payload) {
      return part().deliver(key, epoch, payload);
    }

    @Override
    public FencedOutcome fence(String key, Epoch epoch) {
      return part().fence(key, epoch);
    }

    @Override
    public Optional<Receipt> newest(String key) {
      return part().newest(key);
    }
  }
}
