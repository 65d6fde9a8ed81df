package dev.fencing.zookeeper.internal;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The acquisitions this client holds, at most one per resource, and the timers that delete their
 * nodes when their leases run out.
 *
 * <p>Every read-check-write on a resource's owner node happens under that resource's lock, through
 * the handle of the session that created the node. That is what keeps a delete or a versioned write
 * off a newer owner's node: only this session or its death can remove a node this session created;
 * its death fails every later request of the session; and this session's own removals and creates
 * of the resource are serialized by the lock and applied in order (ZooKeeper applies one session's
 * requests in the order they were sent).
 */
@Singleton
final class Grants {

  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final ConcurrentHashMap<String, Grant> byResource = new ConcurrentHashMap<>();
  private final ReentrantLock[] locks = new ReentrantLock[64];
  private final ScheduledExecutorService timers;
  private final Calls calls;
  private final Session session;
  private final Config config;

  @Inject
  Grants(ScheduledExecutorService timers, Calls calls, Session session, Config config) {
    this.timers = timers;
    this.calls = calls;
    this.session = session;
    this.config = config;
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /** Locks {@code resource} and returns the lock to unlock. */
  ReentrantLock lock(String resource) {
    ReentrantLock lock = locks[Math.floorMod(resource.hashCode(), locks.length)];
    lock.lock();
    return lock;
  }

  /** Returns the grant this client holds for {@code resource}, if any. Under the lock. */
  @Nullable Grant get(String resource) {
    return byResource.get(resource);
  }

  /** Records a new grant and arms its timer. Under the lock. */
  void add(Grant grant) {
    byResource.put(grant.resource, grant);
    arm(grant, grant.deadlineNanos);
  }

  /** Moves a grant's deadline and re-arms its timer. Under the lock. */
  void extend(Grant grant, long deadlineNanos) {
    grant.deadlineNanos = deadlineNanos;
    arm(grant, deadlineNanos);
  }

  /** Forgets a grant whose node is gone or out of reach for good. Under the lock. */
  void forget(Grant grant) {
    byResource.remove(grant.resource, grant);
    if (grant.timer != null) {
      grant.timer.cancel(false);
    }
  }

  /** Marks a grant lost for good and deletes its node as soon as it can. Under the lock. */
  void lose(Grant grant) {
    grant.lost = true;
    arm(grant, System.nanoTime() + RETRY_NANOS);
  }

  /**
   * Deletes the grant's node if it is still there, then forgets the grant. Under the lock.
   *
   * @return whether this call deleted the node
   * @throws Unreachable if that could not be confirmed; the grant is kept
   */
  boolean remove(Grant grant) throws Unreachable {
    if (session.id() != grant.session) {
      // the node, if still there, belongs to a session this client closed: it ends with it
      forget(grant);
      return false;
    }
    String path = config.ownerPath(grant.resource);
    Optional<Node> node = calls.read(grant.zk, path);
    boolean deleted = false;
    if (node.isPresent() && grant.owns(node.get())) {
      try {
        calls.delete(grant.zk, path, node.get().version());
        deleted = true;
      } catch (KeeperException e) {
        // no node: gone already; bad version: the session wrote it since (a timed-out renewal)
        if (e.code() == KeeperException.Code.BADVERSION) {
          return remove(grant);
        }
      }
    }
    forget(grant);
    return deleted;
  }

  /**
   * Marks every grant of {@code session} lost: its connection was interrupted. Grants of a later
   * session keep their state (a stalled process's acquire may run in a new session before the old
   * session's events arrive); grants of an earlier one are lost already, by their session. Never
   * blocks.
   */
  void loseAll(long session) {
    byResource.values().stream()
        .filter(grant -> grant.session == session)
        .forEach(grant -> grant.lost = true);
  }

  /** Deletes the nodes of lost grants now: the connection is back. Never blocks. */
  void removeLost() {
    byResource.values().stream()
        .filter(grant -> grant.lost)
        .forEach(grant -> timers.execute(() -> expire(grant)));
  }

  /** Stops the timers. */
  void close() {
    timers.shutdownNow();
  }

  private void arm(Grant grant, long atNanos) {
    if (grant.timer != null) {
      grant.timer.cancel(false);
    }
    if (!timers.isShutdown()) {
      grant.timer =
          timers.schedule(
              () -> expire(grant), Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
  }

  private void expire(Grant grant) {
    ReentrantLock lock = lock(grant.resource);
    try {
      if (byResource.get(grant.resource) != grant || (!grant.lost && !grant.ranOut())) {
        return;
      }
      remove(grant);
    } catch (Unreachable e) {
      lose(grant);
    } finally {
      lock.unlock();
    }
  }
}
