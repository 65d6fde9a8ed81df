package dev.fencing.zookeeper;

import dev.fencing.ResourceOwnership;
import dev.fencing.zookeeper.internal.Config;
import dev.fencing.zookeeper.internal.ZooKeeperComponent;
import java.time.Duration;

/**
 * The ZooKeeper backend's front door.
 *
 * <pre>{@code
 * ResourceOwnership ownership = ZooKeeperOwnership.builder("zk1:2181,zk2:2181,zk3:2181").build();
 * }</pre>
 *
 * <p><b>Protocol.</b> A resource is the persistent node {@code <root>/resources/<name>}; whoever
 * owns it has created the <em>ephemeral</em> child {@code owner} (data: the owner name and the
 * lease deadline), so acquiring is one create that only one session can win.
 *
 * <p><b>Epoch.</b> The epoch is the owner node's {@code czxid}: the zxid of the transaction that
 * created it. The leader gives every write a 64-bit zxid, (leader epoch &lt;&lt; 32) | counter, in
 * the one total order of all writes; a newly elected leader starts a higher leader epoch, and zxids
 * are persisted in the transaction log, so they only grow across writes, leader elections and
 * restarts of the whole ensemble. A create of a resource's owner node succeeds only after the
 * previous one was deleted, a later write, so every acquisition's epoch is larger than every
 * earlier one. (Wiping the ensemble's data directories starts zxids again: don't, or start over
 * with new resource names.)
 *
 * <p><b>Lease.</b> An ownership ends when its lease runs out without a renewal (this client deletes
 * its node at the deadline, measured on this JVM's monotonic clock from before the request was
 * sent, which is also {@link dev.fencing.Ownership#expiresAt()}), when it is released, or when its
 * session ends (the process stalled, died or was cut off: the server deletes the node after the
 * session timeout). A renewal is a versioned write on the node through the session that created it.
 * If the connection is suspended or a request gets no answer within the call timeout, every
 * affected ownership is lost for good ({@link dev.fencing.OwnershipRenewal.Why#UNREACHABLE}) and
 * its node is deleted as soon as the server can be reached.
 *
 * <p><b>Only through its own client.</b> An ownership is renewed and released only through the
 * client that acquired it, in the session that acquired it; every write first checks that the node
 * still has the ownership's czxid and that session as its ephemeral owner. Another client, or the
 * same client after its session was replaced, treats it as not its own and writes nothing.
 *
 * @since 0.1
 */
public final class ZooKeeperOwnership {

  /** The root used when none is given. */
  public static final String DEFAULT_ROOT = "/fencing";

  private ZooKeeperOwnership() {}

  /**
   * Starts configuring ownership on the ZooKeeper ensemble {@code connectString}, e.g. {@code
   * "zk1:2181,zk2:2181,zk3:2181"}; {@link Builder#build()} checks it.
   */
  public static Builder builder(String connectString) {
    return new Builder(connectString);
  }

  /** Configures a ZooKeeper {@link ResourceOwnership}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final String connectString;
    private String root = DEFAULT_ROOT;
    private Duration sessionTimeout = Duration.ofSeconds(10);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration callTimeout = Duration.ofSeconds(5);

    private Builder(String connectString) {
      this.connectString = connectString;
    }

    /**
     * The znode under which resources live: an absolute path of 1 to 8 segments of {@code A-Z a-z
     * 0-9 . _ : -}, none starting with a dot, not under {@code /zookeeper}; default {@value
     * #DEFAULT_ROOT}.
     */
    public Builder root(String root) {
      this.root = root;
      return this;
    }

    /**
     * The session timeout to ask for, 1 s to 10 min; default 10 s. The server bounds it to 2 to 20
     * times its tick time. A stalled or cut-off holder loses its ownerships this long after it
     * stopped answering.
     */
    public Builder sessionTimeout(Duration sessionTimeout) {
      this.sessionTimeout = sessionTimeout;
      return this;
    }

    /** How long {@link #build()} waits for a connection, 1 ms to 10 min; default 5 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /** How long one request waits for its answer, 1 ms to 10 min; default 5 s. */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = callTimeout;
      return this;
    }

    /**
     * Connects and returns the service; close it to end the session, which ends its ownerships.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     * @throws dev.fencing.CoordinationException naming the connect string if no server answered
     *     within the connect timeout
     */
    public ResourceOwnership build() {
      Config config = new Config(connectString, root, sessionTimeout, connectTimeout, callTimeout);
      return ZooKeeperComponent.create(config).ownership();
    }
  }
}
