package dev.fencing.zookeeper.internal;

import java.util.concurrent.ScheduledFuture;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition this client made, with the handle (and so the session) that created its node. Its
 * mutable fields are guarded by the resource's lock in {@link Grants}, except {@link #lost}, which
 * only ever goes from false to true.
 */
final class Grant {

  /** The epoch of a grant whose create had an unknown outcome: any node of its session matches. */
  static final long UNKNOWN = 0;

  final String resource;
  final String owner;
  final long epoch;
  final ZooKeeper zk;
  final long session;
  long deadlineNanos;
  @Nullable ScheduledFuture<?> timer;
  volatile boolean lost;

  Grant(String resource, String owner, long epoch, ZooKeeper zk, long session, long deadlineNanos) {
    this.resource = resource;
    this.owner = owner;
    this.epoch = epoch;
    this.zk = zk;
    this.session = session;
    this.deadlineNanos = deadlineNanos;
  }

  /** Whether {@code node} is the one this grant created. */
  boolean owns(Node node) {
    return epoch == UNKNOWN ? node.session() == session : node.is(epoch, session);
  }

  /** Whether the lease has run out on this JVM's clock. */
  boolean ranOut() {
    return System.nanoTime() - deadlineNanos >= 0;
  }
}
