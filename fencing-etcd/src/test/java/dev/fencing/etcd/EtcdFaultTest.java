package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.process.Ports;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The backend against an etcd that is down, or dies while an ownership is held. */
class EtcdFaultTest {

  @Test
  void buildFailsQuicklyNamingTheEndpointsWhenNobodyListens() {
    int port = Ports.freePort();
    String endpoint = "http://127.0.0.1:" + port;
    Instant start = Instant.now();
    assertThatThrownBy(
            () -> EtcdOwnership.builder(endpoint).connectTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(CoordinationException.class)
        .hasMessageContaining("etcd at [" + endpoint + "]")
        .hasMessageContaining("checking that the cluster answers")
        .hasMessageContaining("(PT1S)");
    // bounded, not hung; that it waited the 1 s set and not the 5 s default, the message says (a
    // clock bound of 3 s is what a loaded machine breaks)
    assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void aRenewalWhileEtcdIsDownIsLostAsUnreachableAndStaysLostAfterItReturns() {
    Duration callTimeout = Duration.ofSeconds(1);
    try (EtcdCluster etcd = EtcdCluster.start(1);
        ResourceOwnership client =
            EtcdOwnership.builder(etcd.endpoints()).callTimeout(callTimeout).build()) {
      Ownership owned = acquired(client.acquire("killed", "p1", Duration.ofSeconds(30)));
      etcd.kill(0);

      Instant start = Instant.now();
      OwnershipRenewal renewal = client.renew(owned, Duration.ofSeconds(30));
      Duration took = Duration.between(start, Instant.now());
      assertThat(renewal).isInstanceOf(OwnershipRenewal.Lost.class);
      assertThat(((OwnershipRenewal.Lost) renewal).why())
          .isEqualTo(OwnershipRenewal.Why.UNREACHABLE);
      assertThat(((OwnershipRenewal.Lost) renewal).detail()).contains(etcd.endpoint(0));
      assertThat(took).isLessThan(callTimeout.plusMillis(500));
      assertThatThrownBy(() -> client.holder("killed"))
          .isInstanceOf(CoordinationException.class)
          .hasMessageContaining(etcd.endpoint(0));
      // every other method gives its documented answer too, with the client's failure as cause
      assertThatThrownBy(() -> client.acquire("other", "p1", Duration.ofSeconds(30)))
          .isInstanceOf(CoordinationException.class)
          .hasMessageContaining(etcd.endpoint(0))
          .hasCauseInstanceOf(Throwable.class);
      assertThatThrownBy(() -> client.release(owned))
          .isInstanceOf(CoordinationException.class)
          .hasMessageContaining(etcd.endpoint(0))
          .hasCauseInstanceOf(Throwable.class);

      etcd.startMember(0);
      etcd.awaitUp(Duration.ofSeconds(20));
      // The key is still there (its 30 s lease survived the restart), but this client reported
      // the ownership lost, so it does not come back to life.
      OwnershipRenewal again = awaitAnswer(() -> client.renew(owned, Duration.ofSeconds(30)));
      assertThat(again).isInstanceOf(OwnershipRenewal.Lost.class);
      assertThat(((OwnershipRenewal.Lost) again).why()).isEqualTo(OwnershipRenewal.Why.ENDED);

      Ownership next = awaitAcquired(client, "killed", "p2");
      assertThat(next.epoch()).isGreaterThan(owned.epoch());
    }
  }

  @Test
  void theEpochIsTheKeysCreateRevisionAndARenewalKeepsIt() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        ResourceOwnership client =
            EtcdOwnership.builder(etcd.endpoints()).prefix("/apps/billing").build();
        Client raw = Client.builder().endpoints(etcd.endpoints()).build()) {
      long minimumTtl = raw.getLeaseClient().grant(1).get(5, TimeUnit.SECONDS).getTTL();
      System.out.println("etcd grants a 1 s lease as " + minimumTtl + " s");
      assertThat(minimumTtl).isEqualTo(1);

      Instant before = Instant.now();
      Ownership owned = acquired(client.acquire("acc-1", "p1", Duration.ofMillis(1_500)));
      KeyValue kv = key(raw, "/apps/billing/resources/acc-1");
      assertThat(kv.getCreateRevision()).isEqualTo(owned.epoch().value());
      assertThat(kv.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("p1");
      assertThat(owned.expiresAt()).isBetween(before.plusSeconds(2), Instant.now().plusSeconds(2));

      Ownership renewed = client.renew(owned, Duration.ofSeconds(3)).ownership();
      KeyValue after = key(raw, "/apps/billing/resources/acc-1");
      assertThat(after.getCreateRevision()).isEqualTo(owned.epoch().value());
      assertThat(after.getModRevision()).isGreaterThan(kv.getModRevision());
      assertThat(after.getLease()).isNotEqualTo(kv.getLease());
      assertThat(renewed.epoch()).isEqualTo(owned.epoch());
      assertThat(renewed.expiresAt()).isAfter(owned.expiresAt());
    }
  }

  private static KeyValue key(Client raw, String key) throws Exception {
    return raw.getKVClient()
        .get(ByteSequence.from(key, StandardCharsets.UTF_8))
        .get(5, TimeUnit.SECONDS)
        .getKvs()
        .get(0);
  }

  private static Ownership acquired(Acquisition acquisition) {
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    return ((Acquisition.Acquired) acquisition).ownership();
  }

  /** Acquires until granted, for up to 40 s (the old holder's lease, extended by the restart). */
  private static Ownership awaitAcquired(ResourceOwnership client, String resource, String owner) {
    Instant deadline = Instant.now().plusSeconds(40);
    while (true) {
      try {
        if (client.acquire(resource, owner, Duration.ofSeconds(30))
            instanceof Acquisition.Acquired acquired) {
          return acquired.ownership();
        }
      } catch (CoordinationException e) {
        // the client may not have reconnected yet
      }
      assertThat(Instant.now()).as("acquired within 40 s").isBefore(deadline);
      EtcdCluster.sleep(100);
    }
  }

  /** Renews until etcd answers (the client may take a moment to reconnect). */
  private static OwnershipRenewal awaitAnswer(java.util.function.Supplier<OwnershipRenewal> renew) {
    Instant deadline = Instant.now().plusSeconds(20);
    while (true) {
      OwnershipRenewal renewal = renew.get();
      if (!(renewal instanceof OwnershipRenewal.Lost lost)
          || lost.why() != OwnershipRenewal.Why.UNREACHABLE
          || Instant.now().isAfter(deadline)) {
        return renewal;
      }
      EtcdCluster.sleep(100);
    }
  }
}
