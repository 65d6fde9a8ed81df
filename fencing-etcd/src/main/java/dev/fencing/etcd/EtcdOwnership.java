package dev.fencing.etcd;

import dev.fencing.CoordinationException;
import dev.fencing.ResourceOwnership;
import dev.fencing.etcd.internal.Config;
import dev.fencing.etcd.internal.EtcdComponent;
import dev.fencing.etcd.internal.EtcdResourceOwnership;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The etcd backend's front door.
 *
 * <pre>{@code
 * ResourceOwnership ownership =
 *     EtcdOwnership.builder("http://10.0.0.1:2379", "http://10.0.0.2:2379").build();
 * }</pre>
 *
 * <p>A resource is the key {@code <prefix>/resources/<name>}; its value is the owner's name, and it
 * is attached to an etcd lease that the owner renews. <b>The epoch of an acquisition is the key's
 * create revision</b>: the revision of the transaction that created it. etcd's revision is one
 * counter for the whole cluster, raised by every write, agreed through Raft and kept on disk, so it
 * only goes up across clients, member restarts and leader changes, and a compaction drops old
 * versions but never lowers it. A key created again after a release or an expired lease is created
 * by a later write, so every acquisition's epoch is strictly greater than every earlier one.
 * Renewals keep the key (with a new lease), so its create revision, the epoch, stays.
 *
 * <p>What breaks this: restoring the cluster from an older snapshot (or losing a single-member
 * cluster's data directory) starts the revision again from a lower value. After such a restore,
 * raise the revision above every epoch receivers have seen before serving (etcd 3.5+: {@code
 * etcdutl snapshot restore --bump-revision}).
 *
 * <p>Leases are granted in whole seconds (a lease length is rounded up, and the server may grant
 * more: its minimum TTL follows its election timeout) and are judged on the leader's clock; a new
 * leader extends running leases. {@link dev.fencing.Ownership#expiresAt()} is the granted TTL added
 * to this JVM's clock as read before the request was sent, so the ownership never lasts less on the
 * server.
 *
 * @since 0.1
 */
public final class EtcdOwnership {

  /** The key prefix used when none is given. */
  public static final String DEFAULT_PREFIX = "/fencing";

  /** The call timeout used when none is given: 5 s. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(5);

  /** The connect timeout used when none is given: 5 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private EtcdOwnership() {}

  /**
   * Starts configuring a backend on the cluster's client URLs ({@code http://host:port}).
   *
   * @throws IllegalArgumentException naming {@code endpoints} if there is none, or one is not an
   *     {@code http://host:port} URL
   */
  public static Builder builder(@Nullable List<URI> endpoints) {
    return new Builder(
        new Config(endpoints, DEFAULT_PREFIX, DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT)
            .endpoints());
  }

  /**
   * Starts configuring a backend on the cluster's client URLs given as text.
   *
   * @throws IllegalArgumentException naming {@code endpoints} if there is none, or one is not an
   *     {@code http://host:port} URL
   */
  public static Builder builder(String @Nullable ... endpoints) {
    return builder(Config.parse(endpoints));
  }

  /** Configures an etcd {@link ResourceOwnership}; every setting is checked when set. */
  public static final class Builder {
    private final List<URI> endpoints;
    private String prefix = DEFAULT_PREFIX;
    private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;

    private Builder(List<URI> endpoints) {
      this.endpoints = endpoints;
    }

    /**
     * The path all keys live under: {@code /}-separated segments of A-Z a-z 0-9 {@code . _ -},
     * starting with {@code /}, at most 200 characters; default {@value #DEFAULT_PREFIX}.
     *
     * @throws IllegalArgumentException naming {@code prefix} and the value
     */
    public Builder prefix(String prefix) {
      this.prefix = check(endpoints, prefix, callTimeout, connectTimeout).prefix();
      return this;
    }

    /**
     * How long one operation may take, all its requests together, 1 ms to 10 min; default 5 s. A
     * renewal that gets no answer in time reports the ownership lost as unreachable.
     *
     * @throws IllegalArgumentException naming {@code callTimeout} and the value
     */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = check(endpoints, prefix, callTimeout, connectTimeout).callTimeout();
      return this;
    }

    /**
     * How long {@link #build()} waits for the cluster to answer, 1 ms to 10 min; default 5 s.
     *
     * @throws IllegalArgumentException naming {@code connectTimeout} and the value
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = check(endpoints, prefix, callTimeout, connectTimeout).connectTimeout();
      return this;
    }

    /**
     * Connects and checks that the cluster answers a read within the connect timeout.
     *
     * @throws CoordinationException naming the endpoints and what failed, if it did not answer
     */
    public ResourceOwnership build() {
      EtcdResourceOwnership ownership =
          EtcdComponent.create(check(endpoints, prefix, callTimeout, connectTimeout)).ownership();
      try {
        ownership.checkReachable();
      } catch (RuntimeException e) {
        ownership.close();
        throw e;
      }
      return ownership;
    }

    private static Config check(
        List<URI> endpoints, String prefix, Duration callTimeout, Duration connectTimeout) {
      return new Config(endpoints, prefix, callTimeout, connectTimeout);
    }
  }
}
