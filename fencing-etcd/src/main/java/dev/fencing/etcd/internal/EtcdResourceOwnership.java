package dev.fencing.etcd.internal;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.etcd.internal.Calls.Deadline;
import dev.fencing.internal.Validate;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link ResourceOwnership} on etcd. Every write is one transaction that compares the key's create
 * revision (the epoch) and value (the owner) and reads the key back, so each answer is judged on
 * the state the write saw. Leases are etcd leases: a granted TTL in whole seconds, judged on the
 * leader's clock, with the local expiry estimated from the clock read before the grant was sent.
 */
@Singleton
public final class EtcdResourceOwnership implements ResourceOwnership {

  private final Client client;
  private final KV kv;
  private final Lease leases;
  private final Keys keys;
  private final Calls calls;
  private final Config config;

  /** The largest epoch per resource whose renewal this client reported lost as unreachable. */
  private final ConcurrentMap<String, Long> lostUnanswered = new ConcurrentHashMap<>();

  @Inject
  EtcdResourceOwnership(Client client, Keys keys, Calls calls, Config config) {
    this.client = client;
    this.kv = client.getKVClient();
    this.leases = client.getLeaseClient();
    this.keys = keys;
    this.calls = calls;
    this.config = config;
  }

  /**
   * Reads the prefix once within {@link Config#connectTimeout()}, a linearizable read that only a
   * cluster with a quorum and a leader answers.
   *
   * @throws CoordinationException naming the endpoints and what failed
   */
  public void checkReachable() {
    calls.await(
        "read " + config.prefix() + " (checking that the cluster answers)",
        () -> kv.get(keys.root(), GetOption.builder().withCountOnly(true).build()),
        Deadline.in(config.connectTimeout()));
  }

  @Override
  public Acquisition acquire(String resource, String owner, Duration leaseLength) {
    Validate.resource(resource);
    Validate.owner(owner);
    Validate.leaseLength(leaseLength);
    Deadline deadline = calls.deadline();
    ByteSequence key = keys.resource(resource);
    // A held resource is answered from a read, so waiting acquirers write nothing; the
    // transaction below still decides when the read found it free.
    KeyValue seen = read(key, resource, deadline);
    if (seen != null) {
      return held(resource, seen, deadline);
    }
    Instant before = Instant.now();
    LeaseGrantResponse lease = grant(resource, leaseLength, deadline);
    TxnResponse txn =
        putOnLease(
            "acquire " + resource,
            key,
            new Cmp[] {new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))},
            owner,
            PutOption.builder().withLeaseId(lease.getID()).build(),
            deadline);
    KeyValue current = found(txn);
    if (txn.isSucceeded() && current != null) {
      Epoch epoch = Epoch.of(current.getCreateRevision());
      return new Acquisition.Acquired(
          new Ownership(resource, owner, epoch, before.plusSeconds(lease.getTTL())));
    }
    revoke(lease.getID());
    if (current == null) {
      throw new CoordinationException(
          "etcd at " + config.endpointList() + " answered acquire " + resource + " without a key");
    }
    return held(resource, current, deadline);
  }

  @Override
  public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
    Objects.requireNonNull(ownership, "ownership");
    Validate.leaseLength(leaseLength);
    Deadline deadline = calls.deadline();
    String resource = ownership.resource();
    ByteSequence key = keys.resource(resource);
    try {
      if (lostUnanswered.getOrDefault(resource, 0L) >= ownership.epoch().value()) {
        KeyValue current = read(key, resource, deadline);
        endQuietly(ownership);
        return Verdicts.lostEarlier(ownership, current);
      }
      Instant before = Instant.now();
      LeaseGrantResponse lease = grant(resource, leaseLength, deadline);
      TxnResponse txn =
          putOnLease(
              "renew " + resource + " at " + ownership.epoch(),
              key,
              isHeldBy(key, ownership),
              ownership.owner(),
              PutOption.builder().withLeaseId(lease.getID()).withPrevKV().build(),
              deadline);
      if (!txn.isSucceeded()) {
        revoke(lease.getID());
        return Verdicts.lost(ownership, found(txn));
      }
      txn.getPutResponses().stream()
          .filter(put -> put.hasPrevKv() && put.getPrevKv().getLease() != lease.getID())
          .forEach(put -> revoke(put.getPrevKv().getLease()));
      return new OwnershipRenewal.Renewed(
          new Ownership(
              resource, ownership.owner(), ownership.epoch(), before.plusSeconds(lease.getTTL())));
    } catch (CoordinationException e) {
      lostUnanswered.merge(resource, ownership.epoch().value(), Math::max);
      endQuietly(ownership);
      return Verdicts.unreachable(ownership, e);
    }
  }

  @Override
  public FencedOutcome release(Ownership ownership) {
    Objects.requireNonNull(ownership, "ownership");
    String resource = ownership.resource();
    ByteSequence key = keys.resource(resource);
    TxnResponse txn =
        calls.await(
            "release " + resource + " at " + ownership.epoch(),
            () -> endIfHeld(key, ownership),
            calls.deadline());
    KeyValue current = found(txn);
    if (!txn.isSucceeded()) {
      return Verdicts.refusedRelease(ownership, current);
    }
    if (current != null) {
      revoke(current.getLease());
    }
    return new FencedOutcome.Accepted(ownership.key(), ownership.epoch(), false);
  }

  @Override
  public Optional<Acquisition.Held> holder(String resource) {
    Validate.resource(resource);
    Deadline deadline = calls.deadline();
    KeyValue current = read(keys.resource(resource), resource, deadline);
    return Optional.ofNullable(current).map(kv -> held(resource, kv, deadline));
  }

  @Override
  public void close() {
    client.close();
  }

  private LeaseGrantResponse grant(String resource, Duration leaseLength, Deadline deadline) {
    long seconds = Math.max(1, (leaseLength.toNanos() + 999_999_999L) / 1_000_000_000L);
    return calls.await(
        "grant a lease of " + seconds + " s for " + resource,
        () -> leases.grant(seconds),
        deadline);
  }

  private @Nullable KeyValue read(ByteSequence key, String resource, Deadline deadline) {
    GetResponse got = calls.await("read " + resource, () -> kv.get(key), deadline);
    return got.getKvs().isEmpty() ? null : got.getKvs().get(0);
  }

  /**
   * Returns {@code resource}'s holder as {@code kv} shows it; the expiry comes from the remaining
   * TTL of its lease, or is left out if etcd does not tell it within the deadline.
   */
  private Acquisition.Held held(String resource, KeyValue kv, Deadline deadline) {
    Epoch epoch = Epoch.of(kv.getCreateRevision());
    Instant expiresAt = null;
    if (kv.getLease() != 0) {
      Instant asked = Instant.now();
      try {
        long ttl =
            calls
                .await(
                    "read the lease of " + resource,
                    () -> leases.timeToLive(kv.getLease(), LeaseOption.DEFAULT),
                    deadline)
                .getTTL();
        expiresAt = asked.plusSeconds(Math.max(0, ttl));
      } catch (CoordinationException e) {
        // the holder is known; when its lease ends is not, and the contract allows saying so
      }
    }
    return new Acquisition.Held(resource, Keys.owner(kv), epoch, expiresAt);
  }

  /** Deletes the key if {@code ownership} still holds it, reading the key in the same step. */
  private CompletableFuture<TxnResponse> endIfHeld(ByteSequence key, Ownership ownership) {
    return kv.txn()
        .If(isHeldBy(key, ownership))
        .Then(Op.get(key, GetOption.DEFAULT), Op.delete(key, DeleteOption.DEFAULT))
        .Else(Op.get(key, GetOption.DEFAULT))
        .commit();
  }

  /** Ends {@code ownership} on the server if it still holds, without waiting for the answer. */
  private void endQuietly(Ownership ownership) {
    ByteSequence key = keys.resource(ownership.resource());
    Calls.bestEffort(() -> endIfHeld(key, ownership));
  }

  private void revoke(long leaseId) {
    if (leaseId != 0) {
      Calls.bestEffort(() -> leases.revoke(leaseId));
    }
  }

  private static Cmp[] isHeldBy(ByteSequence key, Ownership ownership) {
    return new Cmp[] {
      new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(ownership.epoch().value())),
      new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(Keys.owner(ownership.owner())))
    };
  }

  /**
   * Puts {@code owner} at {@code key} with {@code option} (which names the lease) if {@code
   * condition} holds, reading the key in the same step. If the call fails, the lease is revoked: a
   * write that landed after all ends with it rather than stay unknown.
   */
  private TxnResponse putOnLease(
      String what,
      ByteSequence key,
      Cmp[] condition,
      String owner,
      PutOption option,
      Deadline deadline) {
    try {
      return calls.await(
          what,
          () ->
              kv.txn()
                  .If(condition)
                  .Then(Op.put(key, Keys.owner(owner), option), Op.get(key, GetOption.DEFAULT))
                  .Else(Op.get(key, GetOption.DEFAULT))
                  .commit(),
          deadline);
    } catch (CoordinationException e) {
      revoke(option.getLeaseId());
      throw e;
    }
  }

  /** The key as the transaction's read saw it, or null if absent. */
  private static @Nullable KeyValue found(TxnResponse txn) {
    List<GetResponse> gets = txn.getGetResponses();
    if (gets.isEmpty() || gets.get(0).getKvs().isEmpty()) {
      return null;
    }
    return gets.get(0).getKvs().get(0);
  }
}
