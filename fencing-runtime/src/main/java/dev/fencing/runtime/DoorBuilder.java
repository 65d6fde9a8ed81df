package dev.fencing.runtime;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedReceiver;
import dev.fencing.Maintenance;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The settings that {@link QueueRuntime.Builder} and {@link FencedWorkers.Builder} share: the
 * owner, the receiver, the kind of handler thread, the drain, the outcome listener, maintenance and
 * the outbox relay. Each door reads them when it starts; {@code FencedWorkers} hands the first five
 * to every queue's runtime before that queue's own settings.
 *
 * @param <B> the door's builder, returned by every setter
 */
abstract class DoorBuilder<B extends DoorBuilder<B>> {

  @Nullable String owner;
  @Nullable FencedReceiver receiver;
  boolean virtualThreads = virtualThreadsByDefault();
  Duration drainTimeout = Duration.ofSeconds(30);
  Consumer<WorkOutcome> onOutcome = outcome -> {};
  final Sidecars sidecars = new Sidecars();

  /** As {@link FencedWorkers#defaultVirtualThreads()} says: from Java 24 on. */
  static boolean virtualThreadsByDefault() {
    return Runtime.version().feature() >= 24;
  }

  /** Returns this builder as its door's type. */
  abstract B self();

  /** This process's name, stored as the owner of what it claims (on every queue). Required. */
  public B owner(String owner) {
    this.owner = owner;
    return self();
  }

  /**
   * The receiver each result is delivered to, with the job's id and epoch, before its commit (on
   * {@link FencedWorkers}, every queue's, unless its settings name another). Optional: without one,
   * results are committed only (with their outbox messages, if any).
   *
   * @throws NullPointerException if {@code receiver} is null
   */
  public B receiver(FencedReceiver receiver) {
    this.receiver = Objects.requireNonNull(receiver, "receiver");
    return self();
  }

  /**
   * Runs handlers on virtual threads instead of platform threads (on {@link FencedWorkers}, every
   * queue's, unless its settings say otherwise); default {@link
   * FencedWorkers#defaultVirtualThreads()}: true on Java 24 and later, false on Java 21 to 23. For
   * handlers that block (I/O, sleeps, calls to other services) with a {@code concurrency} in the
   * hundreds or thousands: a blocked virtual thread holds no OS thread; and for many short jobs,
   * whose handler threads are woken once per job (at 128 handlers of 1 ms jobs, 1.18 to 1.29 times
   * the jobs per second of platform threads here, docs/BENCHMARKS.md). {@code concurrency} still
   * bounds the jobs running at once, and heartbeats, cancellation and shutdown work as on platform
   * threads: the claimer, heartbeat and committer stay on platform threads of their own, so a
   * handler that pins its carrier cannot hold up a renewal. Handlers that compute gain nothing
   * (docs/BENCHMARKS.md measures both). On Java 21 to 23, a handler that blocks inside {@code
   * synchronized} pins its carrier thread (so the default there is platform threads); from Java 24
   * it does not. A cancelled handler is interrupted on either kind of thread; on a virtual one, the
   * JDK closes any socket it then blocks on while its interrupt is set, so its later JDBC or HTTP
   * calls may fail at its own connection instead of reaching the server.
   */
  public B virtualThreads(boolean virtualThreads) {
    this.virtualThreads = virtualThreads;
    return self();
  }

  /** How long {@code close()} lets running handlers finish, up to 24 h; default 30 s. */
  public B drainTimeout(Duration drainTimeout) {
    this.drainTimeout = drainTimeout;
    return self();
  }

  /**
   * Called once for every claim's outcome (on {@link FencedWorkers}, every queue's), on a runtime
   * thread; keep it quick. A listener that throws is counted in {@link QueueStats#callbackErrors()}
   * and never stops the runtime.
   *
   * @throws NullPointerException if {@code onOutcome} is null
   */
  public B onOutcome(Consumer<WorkOutcome> onOutcome) {
    this.onOutcome = Objects.requireNonNull(onOutcome, "onOutcome");
    return self();
  }

  /**
   * Runs {@code maintenance} (retention of finished jobs, storage upkeep) on a thread of its own,
   * with or without queues: rounds one after another while work is left, then one round every
   * {@code every}, from 1 s to 24 h, or every {@link Maintenance#upkeepEvery()} when that is
   * shorter (PostgreSQL: its {@code vacuumEvery}, 10 s), so that VACUUM keeps its pace while
   * retention keeps yours. A failing round is logged and retried later, and never touches the jobs
   * in flight. One runtime per database is enough; more share the work. Default: no maintenance.
   *
   * @throws NullPointerException if {@code maintenance} is null
   */
  public B maintenance(Maintenance maintenance, Duration every) {
    sidecars.maintenance(maintenance, every);
    return self();
  }

  /**
   * Relays the outbox messages for {@code destination} to {@code sender} from a thread of the
   * runtime, through {@link FencedOutbox#relay(String, FencedOutbox.Sender, int)}: each message at
   * least once, with the epoch of the commit that wrote it, up to the runtime's {@code batchSize}
   * (100 on {@link FencedWorkers}) per call; a sender that throws leaves its message undelivered,
   * and it is sent again after a pause. Call once per destination. The relay needs no handler of
   * this runtime: it sends what any worker committed. Default: no relay.
   *
   * @throws NullPointerException if {@code outbox} or {@code sender} is null
   */
  public B relay(FencedOutbox outbox, String destination, FencedOutbox.Sender sender) {
    sidecars.relay(outbox, destination, sender);
    return self();
  }

  /**
   * Relays as {@link #relay(FencedOutbox, String, FencedOutbox.Sender)} does, to a receiver that
   * keeps the newest epoch per key ({@link FencedOutbox#relay(String, FencedReceiver, int)}).
   *
   * @throws NullPointerException if {@code outbox} or {@code receiver} is null
   */
  public B relay(FencedOutbox outbox, String destination, FencedReceiver receiver) {
    sidecars.relay(outbox, destination, receiver);
    return self();
  }

  /**
   * How long the relay waits after a round that left nothing to send, 1 ms to 24 h; default 200 ms.
   * It is also the first pause after a failed round, doubling up to 30 s.
   */
  public B relayEvery(Duration every) {
    sidecars.relayEvery(every);
    return self();
  }
}
