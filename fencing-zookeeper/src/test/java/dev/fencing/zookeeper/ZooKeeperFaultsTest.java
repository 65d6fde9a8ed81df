package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** What the client does when ZooKeeper is down, dies mid-lease, or is given bad settings. */
class ZooKeeperFaultsTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void buildFailsInBoundedTimeNamingTheConnectStringWhenNoServerAnswers() throws IOException {
    String nobody = "127.0.0.1:" + unusedPort();
    Instant start = Instant.now();
    assertThatThrownBy(
            () -> ZooKeeperOwnership.builder(nobody).connectTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(CoordinationException.class)
        .hasMessageContaining(nobody)
        .hasMessageContaining("within PT1S");
    // bounded, not hung; that it waited the 1 s set and not the 5 s default, the message says (a
    // bound of 5 s on the clock failed once at load 15)
    assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void aServerKilledMidLeaseMakesTheRenewalUnreachableForGoodAndTheNextEpochIsLarger()
      throws IOException {
    try (ZooKeeperProcesses server = ZooKeeperProcesses.standalone("killed");
        ResourceOwnership client =
            ZooKeeperOwnership.builder(server.connectString())
                .callTimeout(Duration.ofSeconds(1))
                .build()) {
      Ownership owned = acquired(client.acquire("killed-account", "p1", LONG));
      assertThat(client.renew(owned, LONG).isRenewed()).isTrue();

      server.kill(0);
      Instant start = Instant.now();
      OwnershipRenewal renewal = client.renew(owned, LONG);
      assertThat(renewal).isInstanceOf(OwnershipRenewal.Lost.class);
      assertThat(((OwnershipRenewal.Lost) renewal).why())
          .isEqualTo(OwnershipRenewal.Why.UNREACHABLE);
      // within the 1 s call timeout set, with room for a loaded machine, and under the 5 s default
      assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofMillis(4500));
      // every other method gives its documented answer too, with the client's failure as cause
      assertThatThrownBy(() -> client.holder("killed-account"))
          .isInstanceOf(CoordinationException.class)
          .hasCauseInstanceOf(Throwable.class);
      assertThatThrownBy(() -> client.acquire("other-account", "p1", LONG))
          .isInstanceOf(CoordinationException.class)
          .hasCauseInstanceOf(Throwable.class);
      assertThatThrownBy(() -> client.release(owned))
          .isInstanceOf(CoordinationException.class)
          .hasCauseInstanceOf(Throwable.class);

      server.start(0);
      server.awaitServing(0);
      try (ResourceOwnership other = ZooKeeperOwnership.builder(server.connectString()).build()) {
        Ownership next = await(() -> other.acquire("killed-account", "p2", LONG));
        assertThat(next.epoch()).isGreaterThan(owned.epoch());
        // the session survived the restart, but the ownership stays lost
        OwnershipRenewal late = client.renew(owned, LONG);
        assertThat(late.isRenewed()).as("renewal after the restart: %s", late).isFalse();
        assertThat(other.holder("killed-account").orElseThrow().epoch()).isEqualTo(next.epoch());
      }
    }
  }

  @Test
  void anOwnerNodeDeletedBehindItsOwnersBackIsLostAndTheNewerOwnerIsNeverTouched()
      throws Exception {
    try (ZooKeeperProcesses server = ZooKeeperProcesses.standalone("deleted");
        ResourceOwnership first = ZooKeeperOwnership.builder(server.connectString()).build();
        ResourceOwnership second = ZooKeeperOwnership.builder(server.connectString()).build();
        CuratorFramework operator =
            CuratorFrameworkFactory.newClient(server.connectString(), new RetryNTimes(3, 100))) {
      Ownership old = acquired(first.acquire("deleted-account", "p1", LONG));
      operator.start();
      assertThat(operator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
      operator.delete().forPath("/fencing/resources/deleted-account/owner");
      Ownership newer = acquired(second.acquire("deleted-account", "p2", LONG));

      OwnershipRenewal renewal = first.renew(old, LONG);
      assertThat(renewal).isInstanceOf(OwnershipRenewal.Lost.class);
      assertThat(((OwnershipRenewal.Lost) renewal).why())
          .isEqualTo(OwnershipRenewal.Why.SUPERSEDED);
      assertThat(first.release(old)).isInstanceOf(FencedOutcome.Superseded.class);
      assertThat(first.acquire("deleted-account", "p1", LONG)).isInstanceOf(Acquisition.Held.class);
      Stat stat = new Stat();
      byte[] data =
          operator
              .getData()
              .storingStatIn(stat)
              .forPath("/fencing/resources/deleted-account/owner");
      assertThat(stat.getCzxid()).isEqualTo(newer.epoch().value());
      assertThat(stat.getVersion()).as("the newer owner's node was never written").isZero();
      assertThat(new String(data, StandardCharsets.UTF_8)).startsWith("p2\n");
      assertThat(second.renew(newer, LONG).isRenewed()).isTrue();
    }
  }

  @Test
  void badSettingsAreRefusedByName() {
    assertRefused(() -> ZooKeeperOwnership.builder(null).build(), "connectString", "null");
    assertRefused(() -> ZooKeeperOwnership.builder("").build(), "connectString", "''");
    assertRefused(() -> ZooKeeperOwnership.builder("a b:1").build(), "connectString", "'a b:1'");
    for (String root : new String[] {"fencing", "/", "/a/", "/a//b", "/a/..", "/zookeeper/x"}) {
      assertRefused(
          () -> ZooKeeperOwnership.builder("127.0.0.1:1").root(root).build(),
          "root",
          "'" + root + "'");
    }
    assertRefused(
        () -> ZooKeeperOwnership.builder("127.0.0.1:1").sessionTimeout(Duration.ZERO).build(),
        "sessionTimeout",
        "PT0S");
    assertRefused(
        () -> ZooKeeperOwnership.builder("127.0.0.1:1").connectTimeout(null).build(),
        "connectTimeout",
        "null");
    assertRefused(
        () -> ZooKeeperOwnership.builder("127.0.0.1:1").callTimeout(Duration.ofHours(1)).build(),
        "callTimeout",
        "PT1H");
  }

  private static void assertRefused(Runnable build, String parameter, String value) {
    assertThatThrownBy(build::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " must")
        .hasMessageEndingWith("but was " + value);
  }

  private static Ownership acquired(Acquisition acquisition) {
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    return ((Acquisition.Acquired) acquisition).ownership();
  }

  private static Ownership await(Supplier<Acquisition> acquire) {
    Instant deadline = Instant.now().plusSeconds(20);
    while (Instant.now().isBefore(deadline)) {
      if (acquire.get() instanceof Acquisition.Acquired acquired) {
        return acquired.ownership();
      }
      ZooKeeperProcesses.sleep(50);
    }
    throw new AssertionError("the resource was never free again");
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
