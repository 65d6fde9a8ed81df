package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link ResourceOwnership} backend keeps, against a real service. A backend's test
 * subclasses this once and says how to open a client; each test uses resource names of its own, so
 * one server serves them all. Leases run out on the service's own terms, so the tests wait out
 * short leases rather than fake time.
 *
 * @since 0.1
 */
public abstract class ResourceOwnershipContract {

  /** A lease long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(5);

  private final List<ResourceOwnership> opened = new ArrayList<>();
  private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  /** Opens a new client of the backend's service; every call is a new connection. */
  protected abstract ResourceOwnership open();

  /** The shortest lease the backend grants exactly enough to wait out; default 300 ms. */
  protected Duration shortLease() {
    return Duration.ofMillis(300);
  }

  /**
   * How long after a short lease's holder stops renewing the resource may still be held (the
   * service's expiry sweep, a session timeout); default 10 s.
   */
  protected Duration lapseBound() {
    return Duration.ofSeconds(10);
  }

  /** Returns a client, closed after the test. */
  protected final ResourceOwnership client() {
    ResourceOwnership client = open();
    opened.add(client);
    return client;
  }

  /** Returns a resource name no other test uses. */
  protected final String resource(String name) {
    return prefix + name;
  }

  @AfterEach
  void closeClients() {
    opened.forEach(ResourceOwnership::close);
    opened.clear();
  }

  @Test
  void aHeldResourceIsHeldForEveryoneElseAndForItsOwnName() {
    ResourceOwnership first = client();
    ResourceOwnership second = client();
    String account = resource("held");
    Instant before = Instant.now().minusSeconds(1);
    Ownership owned = acquired(first.acquire(account, "p1", LONG));
    assertThat(owned.resource()).isEqualTo(account);
    assertThat(owned.owner()).isEqualTo("p1");
    assertThat(owned.expiresAt()).isAfter(before.plus(LONG).minusSeconds(5));

    for (String owner : List.of("p2", "p1")) {
      Acquisition again = second.acquire(account, owner, LONG);
      assertThat(again).isInstanceOf(Acquisition.Held.class);
      Acquisition.Held held = (Acquisition.Held) again;
      assertThat(held.owner()).isEqualTo("p1");
      assertThat(held.epoch()).isEqualTo(owned.epoch());
    }
    assertThat(first.acquire(account, "p1", LONG)).isInstanceOf(Acquisition.Held.class);
    Acquisition.Held holder = second.holder(account).orElseThrow();
    assertThat(holder.owner()).isEqualTo("p1");
    assertThat(holder.epoch()).isEqualTo(owned.epoch());
  }

  @Test
  void everyAcquisitionTakesALargerEpochWhoeverAcquires() {
    ResourceOwnership first = client();
    ResourceOwnership second = client();
    String account = resource("epochs");
    Epoch last = null;
    for (int i = 0; i < 6; i++) {
      ResourceOwnership client = i % 3 == 0 ? second : first;
      String owner = i % 2 == 0 ? "same" : "other";
      Ownership owned = acquired(client.acquire(account, owner, LONG));
      if (last != null) {
        assertThat(owned.epoch()).isGreaterThan(last);
      }
      last = owned.epoch();
      assertThat(client.release(owned)).isEqualTo(new FencedOutcome.Accepted(account, last, false));
    }
  }

  @Test
  void aNewClientAfterTheOldOneClosedStillTakesALargerEpoch() {
    String account = resource("restart");
    ResourceOwnership before = open();
    Ownership owned = acquired(before.acquire(account, "p1", LONG));
    before.release(owned);
    before.close();
    Ownership after = acquired(client().acquire(account, "p1", LONG));
    assertThat(after.epoch()).isGreaterThan(owned.epoch());
  }

  @Test
  void releaseLetsTheNextInAtOnceAndASecondReleaseChangesNothing() {
    ResourceOwnership client = client();
    String account = resource("release");
    Ownership owned = acquired(client.acquire(account, "p1", LONG));
    assertThat(client.release(owned).isAccepted()).isTrue();
    assertThat(client.holder(account)).isEmpty();
    assertThat(client.release(owned))
        .isEqualTo(new FencedOutcome.Accepted(account, owned.epoch(), true));
    assertThat(client.renew(owned, LONG)).isInstanceOf(OwnershipRenewal.Lost.class);
    assertThat(((OwnershipRenewal.Lost) client.renew(owned, LONG)).why())
        .isEqualTo(OwnershipRenewal.Why.ENDED);
    Ownership next = acquired(client().acquire(account, "p2", LONG));
    assertThat(next.epoch()).isGreaterThan(owned.epoch());
  }

  @Test
  void anOwnershipThatRanOutIsTakenOverAndTheOldOneIsFencedOff() {
    ResourceOwnership zombieClient = client();
    ResourceOwnership healthyClient = client();
    String account = resource("takeover");
    Ownership zombie = acquired(zombieClient.acquire(account, "zombie", shortLease()));
    Ownership healthy = awaitAcquired(() -> healthyClient.acquire(account, "healthy", LONG));
    assertThat(healthy.epoch()).isGreaterThan(zombie.epoch());

    OwnershipRenewal late = zombieClient.renew(zombie, LONG);
    assertThat(late).isInstanceOf(OwnershipRenewal.Lost.class);
    OwnershipRenewal.Lost lost = (OwnershipRenewal.Lost) late;
    assertThat(lost.why()).isEqualTo(OwnershipRenewal.Why.SUPERSEDED);
    assertThat(lost.current()).isEqualTo(healthy.epoch());
    FencedOutcome release = zombieClient.release(zombie);
    assertThat(release).isInstanceOf(FencedOutcome.Superseded.class);
    assertThat(((FencedOutcome.Superseded) release).current()).isEqualTo(healthy.epoch());
    assertThat(healthyClient.holder(account).orElseThrow().epoch()).isEqualTo(healthy.epoch());
    assertThat(healthyClient.renew(healthy, LONG).isRenewed()).isTrue();
  }

  @Test
  void theSameOwnerNameTakesOverWithALargerEpochAndItsOldOwnershipIsFencedOff() {
    ResourceOwnership client = client();
    String account = resource("same-name");
    Ownership old = acquired(client.acquire(account, "p1", shortLease()));
    Ownership now = awaitAcquired(() -> client().acquire(account, "p1", LONG));
    assertThat(now.epoch()).isGreaterThan(old.epoch());
    assertThat(client.renew(old, LONG).isRenewed()).isFalse();
    assertThat(client.release(old).isAccepted()).isFalse();
    assertThat(client.holder(account).orElseThrow().epoch()).isEqualTo(now.epoch());
  }

  @Test
  void renewingKeepsOthersOutPastTheFirstLease() throws InterruptedException {
    ResourceOwnership owner = client();
    ResourceOwnership other = client();
    String account = resource("renew");
    Duration lease = shortLease().multipliedBy(4);
    Ownership owned = acquired(owner.acquire(account, "p1", lease));
    Instant until = Instant.now().plus(lease.multipliedBy(3));
    while (Instant.now().isBefore(until)) {
      OwnershipRenewal renewal = owner.renew(owned, lease);
      assertThat(renewal.isRenewed()).as("renewal %s", renewal).isTrue();
      assertThat(renewal.ownership().epoch()).isEqualTo(owned.epoch());
      assertThat(renewal.ownership().expiresAt()).isAfterOrEqualTo(owned.expiresAt());
      owned = renewal.ownership();
      assertThat(other.acquire(account, "p2", LONG)).isInstanceOf(Acquisition.Held.class);
      Thread.sleep(lease.toMillis() / 4);
    }
  }

  @Test
  void anOwnershipThatRanOutWithNobodyNewerIsLostAsEnded() {
    ResourceOwnership client = client();
    String account = resource("ended");
    Ownership owned = acquired(client.acquire(account, "p1", shortLease()));
    await(() -> client().holder(account).isEmpty(), "the lease to run out");
    OwnershipRenewal renewal = client.renew(owned, LONG);
    assertThat(renewal).isInstanceOf(OwnershipRenewal.Lost.class);
    assertThat(((OwnershipRenewal.Lost) renewal).why()).isEqualTo(OwnershipRenewal.Why.ENDED);
    assertThat(client.release(owned))
        .isEqualTo(new FencedOutcome.Accepted(account, owned.epoch(), true));
    assertThat(acquired(client.acquire(account, "p2", LONG)).epoch()).isGreaterThan(owned.epoch());
  }

  @Test
  void aForgedOwnershipRenewsNothingAndReleasesNothing() {
    ResourceOwnership client = client();
    String account = resource("forged");
    Ownership owned = acquired(client.acquire(account, "p1", LONG));
    Ownership otherName = new Ownership(account, "p2", owned.epoch(), owned.expiresAt());
    Ownership newerEpoch = new Ownership(account, "p1", owned.epoch().next(), owned.expiresAt());
    Ownership olderEpoch =
        owned.epoch().value() > 1
            ? new Ownership(account, "p1", Epoch.of(owned.epoch().value() - 1), owned.expiresAt())
            : otherName;
    for (Ownership forged : List.of(otherName, newerEpoch, olderEpoch)) {
      assertThat(client.renew(forged, LONG).isRenewed()).as("renew %s", forged).isFalse();
      client.release(forged);
      assertThat(client.holder(account)).as("after releasing %s", forged).isPresent();
    }
    assertThat(client.holder(account).orElseThrow().epoch()).isEqualTo(owned.epoch());
    assertThat(client.renew(owned, LONG).isRenewed()).isTrue();
  }

  @Test
  void racingAcquirersGetOneOwnershipAndEveryoneElseSeesIt() throws Exception {
    int racers = 6;
    List<ResourceOwnership> clients = new ArrayList<>();
    for (int i = 0; i < racers; i++) {
      clients.add(client());
    }
    String account = resource("race");
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      List<Future<Acquisition>> results = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        ResourceOwnership client = clients.get(i);
        String owner = i < racers / 2 ? "twin" : "racer-" + i;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return client.acquire(account, owner, LONG);
                }));
      }
      start.countDown();
      List<Ownership> winners = new ArrayList<>();
      List<Acquisition.Held> losers = new ArrayList<>();
      for (Future<Acquisition> result : results) {
        switch (result.get()) {
          case Acquisition.Acquired acquired -> winners.add(acquired.ownership());
          case Acquisition.Held held -> losers.add(held);
        }
      }
      assertThat(winners).hasSize(1);
      assertThat(losers)
          .allSatisfy(held -> assertThat(held.epoch()).isEqualTo(winners.get(0).epoch()));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void resourcesAreIndependent() {
    ResourceOwnership client = client();
    Ownership a = acquired(client.acquire(resource("a"), "p1", LONG));
    Ownership b = acquired(client.acquire(resource("b"), "p1", LONG));
    client.release(a);
    assertThat(client.holder(resource("b")).orElseThrow().epoch()).isEqualTo(b.epoch());
    assertThat(client.renew(b, LONG).isRenewed()).isTrue();
  }

  @Test
  void badInputIsRefusedByNameAndWritesNothing() {
    ResourceOwnership client = client();
    String account = resource("bad");
    assertRefused(() -> client.acquire("42", "p1", LONG), "resource", "'42'");
    assertRefused(() -> client.acquire(null, "p1", LONG), "resource", "null");
    assertRefused(() -> client.acquire("a/b", "p1", LONG), "resource", "'a/b'");
    assertRefused(() -> client.acquire(account, " ", LONG), "owner", "' '");
    assertRefused(() -> client.acquire(account, "p1", Duration.ZERO), "leaseLength", "PT0S");
    assertRefused(
        () -> client.acquire(account, "p1", Duration.ofHours(25)), "leaseLength", "PT25H");
    assertRefused(() -> client.acquire(account, "p1", null), "leaseLength", "null");
    assertRefused(() -> client.holder("../x"), "resource", "'../x'");
    assertThat(client.holder(account)).isEmpty();
    Ownership owned = acquired(client.acquire(account, "p1", LONG));
    assertRefused(() -> client.renew(owned, Duration.ofMillis(-1)), "leaseLength", "PT-0.001S");
    assertThat(client.holder(account).orElseThrow().epoch()).isEqualTo(owned.epoch());
  }

  /** Returns the ownership {@code acquisition} granted, failing the test if it was held. */
  protected static Ownership acquired(Acquisition acquisition) {
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    return ((Acquisition.Acquired) acquisition).ownership();
  }

  /** Acquires until it is granted, within the short lease plus {@link #lapseBound()}. */
  protected final Ownership awaitAcquired(Supplier<Acquisition> acquire) {
    Instant deadline = Instant.now().plus(shortLease()).plus(lapseBound());
    while (true) {
      Acquisition acquisition = acquire.get();
      if (acquisition instanceof Acquisition.Acquired acquired) {
        return acquired.ownership();
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(
            "still held after " + shortLease().plus(lapseBound()) + ": " + acquisition);
      }
      pause();
    }
  }

  private void await(Supplier<Boolean> condition, String what) {
    Instant deadline = Instant.now().plus(shortLease()).plus(lapseBound());
    while (!condition.get()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("waited in vain for " + what);
      }
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(25);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static void assertRefused(Runnable call, String parameter, String value) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " must")
        .hasMessageEndingWith("but was " + value);
  }
}
