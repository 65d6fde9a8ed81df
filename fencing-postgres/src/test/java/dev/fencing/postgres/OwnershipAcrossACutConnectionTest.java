package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Acquisition;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The database goes out of reach in the middle of a lease (every connection dropped, new ones
 * refused), then comes back: renewals report the ownership lost as unreachable within the retry
 * bound instead of throwing, and the epoch carries on from the committed row.
 */
@FencingDatabase
class OwnershipAcrossACutConnectionTest {

  private static final Duration LEASE = Duration.ofSeconds(4);
  private final List<FlakyProxy> proxies = new ArrayList<>();

  @AfterEach
  void stopProxies() {
    proxies.forEach(FlakyProxy::close);
  }

  private FlakyProxy proxy(TestSchema schema) {
    FlakyProxy proxy = FlakyProxy.inFrontOf(schema.database());
    proxies.add(proxy);
    return proxy;
  }

  @Test
  void aCutConnectionLosesTheRenewalAndTheNextAcquisitionTakesALargerEpoch(TestSchema schema)
      throws Exception {
    FlakyProxy first = proxy(schema);
    AtomicReference<DataSource> database = new AtomicReference<>(first.database().dataSource());
    ResourceOwnership owners =
        PostgresFencing.builder(Switchable.dataSource(database))
            .schema(schema.name())
            .transientRetries(3)
            .retryWait(Duration.ofMillis(50))
            .build()
            .ownership();
    Ownership owned = acquired(owners.acquire("account-cut", "p1", LEASE));

    // Out of reach: new connections go to a port nobody listens on, the open ones are dropped.
    // (Closing the proxy alone is not enough: a connection racing its close was still forwarded,
    // 2 runs in 12.)
    int nowhere = closedPort();
    database.set(
        new PostgresFixture.Database(
                "jdbc:postgresql://127.0.0.1:" + nowhere + "/postgres?sslmode=disable",
                schema.database().user(),
                schema.database().password(),
                "nowhere")
            .dataSource());
    first.close();
    long started = System.nanoTime();
    OwnershipRenewal renewal = owners.renew(owned, LEASE);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(renewal)
        .as("renewal %s after %s", renewal, took)
        .isInstanceOf(OwnershipRenewal.Lost.class);
    OwnershipRenewal.Lost lost = (OwnershipRenewal.Lost) renewal;
    assertThat(lost.why()).isEqualTo(OwnershipRenewal.Why.UNREACHABLE);
    assertThat(lost.current()).isNull();
    assertThat(lost.detail()).contains(schema.name()).contains("127.0.0.1:" + nowhere);
    assertThat(took).isLessThan(Duration.ofSeconds(5));
    for (Runnable call :
        List.<Runnable>of(
            () -> owners.acquire("account-cut", "p2", LEASE),
            () -> owners.holder("account-cut"),
            () -> owners.release(owned))) {
      assertThatThrownBy(call::run)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(schema.name())
          .hasMessageContaining("127.0.0.1:" + nowhere);
    }

    // back, at a new address as after a restart: the lease is still judged on the database clock
    database.set(proxy(schema).database().dataSource());
    Acquisition meanwhile = owners.acquire("account-cut", "p2", LEASE);
    if (meanwhile instanceof Acquisition.Held held) {
      assertThat(held.epoch()).isEqualTo(owned.epoch());
    }
    Ownership next = awaitAcquired(owners, "account-cut", "p2", LEASE.multipliedBy(3));
    assertThat(next.epoch()).isGreaterThan(owned.epoch());
    ResourceOwnership restarted =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().ownership();
    assertThat(restarted.holder("account-cut").orElseThrow().epoch()).isEqualTo(next.epoch());
    OwnershipRenewal late = restarted.renew(owned, LEASE);
    assertThat(((OwnershipRenewal.Lost) late).why()).isEqualTo(OwnershipRenewal.Why.SUPERSEDED);
  }

  @Test
  void droppedConnectionsOfAPoolAreRetriedAndTheRenewalHolds(TestSchema schema) throws Exception {
    FlakyProxy proxy = proxy(schema);
    DataSource pool = proxy.database().pooledDataSource(2);
    try {
      ResourceOwnership owners =
          PostgresFencing.builder(pool)
              .schema(schema.name())
              .retryWait(Duration.ofMillis(10))
              .build()
              .ownership();
      Ownership owned = acquired(owners.acquire("account-drop", "p1", LEASE));
      proxy.dropAllConnections();
      OwnershipRenewal renewal = owners.renew(owned, LEASE);
      assertThat(renewal.isRenewed()).as("renewal %s", renewal).isTrue();
      assertThat(renewal.ownership().epoch()).isEqualTo(owned.epoch());
      proxy.dropAllConnections();
      assertThat(owners.holder("account-drop").orElseThrow().epoch()).isEqualTo(owned.epoch());
    } finally {
      ((AutoCloseable) pool).close();
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Ownership acquired(Acquisition acquisition) {
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    return ((Acquisition.Acquired) acquisition).ownership();
  }

  private static Ownership awaitAcquired(
      ResourceOwnership owners, String resource, String owner, Duration within)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(within);
    while (true) {
      Acquisition acquisition = owners.acquire(resource, owner, LEASE);
      if (acquisition instanceof Acquisition.Acquired acquired) {
        return acquired.ownership();
      }
      assertThat(Instant.now()).as("still %s", acquisition).isBefore(deadline);
      Thread.sleep(50);
    }
  }
}
