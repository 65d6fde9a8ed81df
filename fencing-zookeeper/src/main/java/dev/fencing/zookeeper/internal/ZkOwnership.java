package dev.fencing.zookeeper.internal;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.OwnershipRenewal.Why;
import dev.fencing.ResourceOwnership;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** {@link ResourceOwnership} on ZooKeeper; see {@code ZooKeeperOwnership} for the protocol. */
final class ZkOwnership implements ResourceOwnership {

  private static final int ATTEMPTS = 5;

  private final Config config;
  private final Session session;
  private final Calls calls;
  private final Grants grants;
  private final AtomicBoolean closed = new AtomicBoolean();

  @Inject
  ZkOwnership(Config config, Session session, Calls calls, Grants grants) {
    this.config = config;
    this.session = session;
    this.calls = calls;
    this.grants = grants;
    session.listen(grants::loseAll, grants::removeLost);
  }

  @Override
  public Acquisition acquire(String resource, String owner, Duration leaseLength) {
    Validate.resource(resource);
    Validate.owner(owner);
    Validate.leaseLength(leaseLength);
    String path = config.ownerPath(resource);
    ReentrantLock lock = grants.lock(resource);
    try {
      ZooKeeper zk = session.handle();
      long id = zk.getSessionId();
      Grant old = grants.get(resource);
      if (old != null && (old.lost || old.session != id || old.ranOut())) {
        grants.remove(old);
      }
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        long start = System.nanoTime();
        Instant expiresAt = Instant.now().plus(leaseLength);
        Stat stat;
        try {
          stat = calls.createEphemeral(zk, path, Node.data(owner, expiresAt.toEpochMilli()));
        } catch (KeeperException.NoNodeException e) {
          createParents(zk, resource);
          continue;
        } catch (KeeperException e) {
          Optional<Node> node = calls.read(zk, path);
          if (node.isEmpty()) {
            continue;
          }
          Grant mine = grants.get(resource);
          if (node.get().session() == id && (mine == null || !mine.owns(node.get()))) {
            // left by a create whose answer was lost: nobody holds an ownership for it
            deleteQuietly(zk, path, node.get());
            continue;
          }
          return new Acquisition.Held(resource, node.get().owner(), epoch(node.get()), null);
        } catch (Unreachable e) {
          if (grants.get(resource) == null) {
            Grant unknown = new Grant(resource, owner, Grant.UNKNOWN, zk, id, start);
            grants.add(unknown);
            grants.lose(unknown);
          }
          throw new CoordinationException(
              e.getMessage() + "; whether " + resource + " was acquired is unknown", e);
        }
        grants.add(
            new Grant(resource, owner, stat.getCzxid(), zk, id, start + leaseLength.toNanos()));
        return new Acquisition.Acquired(
            new Ownership(resource, owner, Epoch.of(stat.getCzxid()), expiresAt));
      }
      throw new CoordinationException(
          "ZooKeeper at "
              + config.connectString()
              + ": "
              + path
              + " kept changing; gave up after "
              + ATTEMPTS
              + " attempts");
    } catch (Unreachable e) {
      throw new CoordinationException(e.getMessage(), e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
    Objects.requireNonNull(ownership, "ownership");
    Validate.leaseLength(leaseLength);
    ReentrantLock lock = grants.lock(ownership.resource());
    try {
      Grant grant = grants.get(ownership.resource());
      if (grant == null || !grants(grant, ownership)) {
        return lostAsRead(ownership, "not held by this client");
      }
      if (grant.lost) {
        return lost(
            ownership, Why.UNREACHABLE, null, "the connection to ZooKeeper was interrupted");
      }
      if (session.id() != grant.session || grant.ranOut()) {
        grants.remove(grant);
        return lostAsRead(ownership, "its session or its lease ended");
      }
      return extend(grant, ownership, leaseLength);
    } catch (Unreachable e) {
      Grant grant = grants.get(ownership.resource());
      if (grant != null && grants(grant, ownership)) {
        grants.lose(grant);
      }
      return lost(ownership, Why.UNREACHABLE, null, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  private OwnershipRenewal extend(Grant grant, Ownership ownership, Duration leaseLength)
      throws Unreachable {
    String path = config.ownerPath(grant.resource);
    long start = System.nanoTime();
    Instant expiresAt = Instant.now().plus(leaseLength);
    Optional<Node> node = calls.read(grant.zk, path);
    if (node.isEmpty() || !grant.owns(node.get())) {
      grants.forget(grant);
      return lostAsRead(ownership, "its node is gone");
    }
    try {
      calls.setData(
          grant.zk, path, Node.data(grant.owner, expiresAt.toEpochMilli()), node.get().version());
    } catch (KeeperException e) {
      grants.lose(grant);
      return lost(ownership, Why.UNREACHABLE, null, "its node changed under it: " + e.getMessage());
    }
    if (grant.lost) {
      return lost(ownership, Why.UNREACHABLE, null, "the connection to ZooKeeper was interrupted");
    }
    grants.extend(grant, start + leaseLength.toNanos());
    return new OwnershipRenewal.Renewed(
        new Ownership(ownership.resource(), ownership.owner(), ownership.epoch(), expiresAt));
  }

  @Override
  public FencedOutcome release(Ownership ownership) {
    Objects.requireNonNull(ownership, "ownership");
    ReentrantLock lock = grants.lock(ownership.resource());
    try {
      Grant grant = grants.get(ownership.resource());
      if (grant == null || !grants(grant, ownership)) {
        return releasedAsRead(ownership);
      }
      boolean ended = grant.ranOut();
      if (grants.remove(grant)) {
        return new FencedOutcome.Accepted(ownership.key(), ownership.epoch(), ended);
      }
      return releasedAsRead(ownership);
    } catch (Unreachable e) {
      Grant grant = grants.get(ownership.resource());
      if (grant != null && grants(grant, ownership)) {
        grants.lose(grant);
      }
      throw new CoordinationException(
          e.getMessage() + "; " + ownership.resource() + " ends when its lease runs out", e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<Acquisition.Held> holder(String resource) {
    Validate.resource(resource);
    try {
      return calls
          .readLatest(session.handle(), config.ownerPath(resource))
          .map(node -> new Acquisition.Held(resource, node.owner(), epoch(node), null));
    } catch (Unreachable e) {
      throw new CoordinationException(e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      grants.close();
      session.close();
    }
  }

  private static boolean grants(Grant grant, Ownership ownership) {
    return grant.epoch == ownership.epoch().value() && grant.owner.equals(ownership.owner());
  }

  private OwnershipRenewal lostAsRead(Ownership ownership, String why) throws Unreachable {
    Optional<Node> node =
        calls.readLatest(session.handle(), config.ownerPath(ownership.resource()));
    long epoch = ownership.epoch().value();
    if (node.isEmpty()) {
      return lost(ownership, Why.ENDED, null, why + "; nobody holds " + ownership.resource());
    }
    Node holder = node.get();
    if (holder.czxid() > epoch) {
      return lost(
          ownership, Why.SUPERSEDED, epoch(holder), why + "; " + holder.owner() + " holds it");
    }
    if (holder.czxid() == epoch && holder.owner().equals(ownership.owner())) {
      return lost(ownership, Why.UNREACHABLE, epoch(holder), why + "; held by another session");
    }
    return lost(ownership, Why.ENDED, epoch(holder), why + "; never granted as given");
  }

  private FencedOutcome releasedAsRead(Ownership ownership) throws Unreachable {
    return releasedAsRead(
        ownership, calls.readLatest(session.handle(), config.ownerPath(ownership.resource())));
  }

  private FencedOutcome releasedAsRead(Ownership ownership, Optional<Node> node) {
    if (node.isEmpty()) {
      return new FencedOutcome.Accepted(ownership.key(), ownership.epoch(), true);
    }
    Node holder = node.get();
    if (holder.czxid() > ownership.epoch().value()) {
      return new FencedOutcome.Superseded(
          ownership.key(), ownership.epoch(), epoch(holder), holder.owner());
    }
    if (holder.czxid() == ownership.epoch().value() && holder.owner().equals(ownership.owner())) {
      throw new CoordinationException(
          "ZooKeeper at "
              + config.connectString()
              + ": "
              + ownership.resource()
              + " at "
              + ownership.epoch()
              + " is held by another session, which alone can release it; it ends when that"
              + " session or its lease ends");
    }
    return new FencedOutcome.NotOwner(
        ownership.key(), ownership.epoch(), ownership.owner(), epoch(holder), holder.owner());
  }

  private static OwnershipRenewal lost(
      Ownership ownership, Why why, @Nullable Epoch current, String detail) {
    return new OwnershipRenewal.Lost(ownership, why, current, detail);
  }

  private static Epoch epoch(Node node) {
    return Epoch.of(node.czxid());
  }

  private void createParents(ZooKeeper zk, String resource) throws Unreachable {
    String root = config.root();
    StringBuilder path = new StringBuilder();
    try {
      for (String segment : root.substring(1).split("/")) {
        path.append('/').append(segment);
        calls.ensurePersistent(zk, path.toString());
      }
      calls.ensurePersistent(zk, root + "/resources");
      calls.ensurePersistent(zk, config.resourcePath(resource));
    } catch (KeeperException e) {
      throw new Unreachable("ZooKeeper at " + config.connectString() + ": " + e.getMessage(), e);
    }
  }

  private void deleteQuietly(ZooKeeper zk, String path, Node node) throws Unreachable {
    try {
      calls.delete(zk, path, node.version());
    } catch (KeeperException e) {
      // gone or changed: the next attempt reads it again
    }
  }
}
