package dev.fencing.zookeeper.internal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * ZooKeeper requests through one given handle (so through one given session), each bounded by the
 * call timeout. Expected answers (no node, node exists, bad version) are thrown as {@link
 * KeeperException}; everything else is {@link Unreachable}.
 */
final class Calls {

  private static final List<ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

  private final Duration timeout;
  private final String service;

  Calls(Duration timeout, String connectString) {
    this.timeout = timeout;
    this.service = "ZooKeeper at " + connectString;
  }

  /** Creates an ephemeral node and returns its stat (czxid: the epoch). */
  Stat createEphemeral(ZooKeeper zk, String path, byte[] data) throws KeeperException, Unreachable {
    CompletableFuture<Stat> done = new CompletableFuture<>();
    zk.create(
        path,
        data,
        OPEN,
        CreateMode.EPHEMERAL,
        (rc, p, ctx, name, stat) -> complete(done, rc, p, stat),
        null);
    return await(done, "create " + path);
  }

  /** Creates a persistent, empty node; one that exists already is fine. */
  void ensurePersistent(ZooKeeper zk, String path) throws KeeperException, Unreachable {
    CompletableFuture<Stat> done = new CompletableFuture<>();
    zk.create(
        path,
        new byte[0],
        OPEN,
        CreateMode.PERSISTENT,
        (rc, p, ctx, name, stat) ->
            complete(done, rc == Code.NODEEXISTS.intValue() ? Code.OK.intValue() : rc, p, stat),
        null);
    await(done, "create " + path);
  }

  /** Reads a node, or empty if there is none. */
  Optional<Node> read(ZooKeeper zk, String path) throws Unreachable {
    CompletableFuture<Optional<Node>> done = new CompletableFuture<>();
    zk.getData(
        path,
        false,
        (rc, p, ctx, data, stat) -> {
          if (rc == Code.NONODE.intValue()) {
            done.complete(Optional.empty());
          } else {
            complete(
                done,
                rc,
                p,
                rc == Code.OK.intValue()
                    ? Optional.of(
                        new Node(
                            Node.owner(data),
                            stat.getCzxid(),
                            stat.getEphemeralOwner(),
                            stat.getVersion()))
                    : Optional.empty());
          }
        },
        null);
    try {
      return await(done, "read " + path);
    } catch (KeeperException e) {
      throw unreachable("read " + path, e);
    }
  }

  /** Reads a node after the server this handle talks to caught up with the leader. */
  Optional<Node> readLatest(ZooKeeper zk, String path) throws Unreachable {
    CompletableFuture<Object> synced = new CompletableFuture<>();
    zk.sync(path, (rc, p, ctx) -> complete(synced, rc, p, p), null);
    try {
      await(synced, "sync " + path);
    } catch (KeeperException e) {
      throw unreachable("sync " + path, e);
    }
    return read(zk, path);
  }

  /** Replaces a node's data if its version is still {@code version}. */
  void setData(ZooKeeper zk, String path, byte[] data, int version)
      throws KeeperException, Unreachable {
    CompletableFuture<Stat> done = new CompletableFuture<>();
    zk.setData(path, data, version, (rc, p, ctx, stat) -> complete(done, rc, p, stat), null);
    await(done, "set " + path);
  }

  /** Deletes a node if its version is still {@code version}. */
  void delete(ZooKeeper zk, String path, int version) throws KeeperException, Unreachable {
    CompletableFuture<String> done = new CompletableFuture<>();
    zk.delete(path, version, (rc, p, ctx) -> complete(done, rc, p, p), null);
    await(done, "delete " + path);
  }

  private static <T> void complete(CompletableFuture<T> done, int rc, String path, T value) {
    Code code = Code.get(rc);
    if (code == Code.OK) {
      done.complete(value);
    } else {
      done.completeExceptionally(KeeperException.create(code, path));
    }
  }

  private <T> T await(CompletableFuture<T> done, String what) throws KeeperException, Unreachable {
    try {
      return done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KeeperException keeper && expected(keeper.code())) {
        throw keeper;
      }
      throw unreachable(what, e.getCause());
    } catch (TimeoutException e) {
      throw unreachable(what + ": no answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(what + ": interrupted", e);
    }
  }

  private static boolean expected(Code code) {
    return code == Code.NONODE || code == Code.NODEEXISTS || code == Code.BADVERSION;
  }

  private Unreachable unreachable(String what, Throwable cause) {
    return new Unreachable(service + ": " + what + " failed: " + cause.getMessage(), cause);
  }
}
