package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Resource ownership through PgBouncer in transaction mode: clients that acquire, renew and release
 * at once, on a pool of more connections than PgBouncer has server connections, each get every
 * round right, with a larger epoch each time. (The ownership contract passes through PgBouncer too,
 * but takes 8 s of lease waits that this module's budget has no room for; see docs/HA.md.)
 */
@FencingDatabase
class OwnershipThroughPgBouncerTest {

  private static final int CLIENTS = 4;
  private static final int ROUNDS = 10;
  private static final Duration LEASE = Duration.ofMinutes(1);

  @Test
  void clientsAcquireRenewAndReleaseAtOnce(TestSchema schema) throws Exception {
    ResourceOwnership ownership =
        PostgresFencing.builder(PgBouncerProcess.shared().pool(CLIENTS))
            .schema(schema.name())
            .build()
            .ownership();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<Epoch>> last = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        String resource = "r" + c;
        last.add(clients.submit(() -> rounds(ownership, resource)));
      }
      for (Future<Epoch> epoch : last) {
        assertThat(epoch.get(30, TimeUnit.SECONDS)).isEqualTo(Epoch.of(ROUNDS));
      }
    } finally {
      clients.shutdownNow();
    }
  }

  /** Acquires, renews and releases {@code resource} {@link #ROUNDS} times; the last epoch. */
  private static Epoch rounds(ResourceOwnership ownership, String resource) {
    Epoch previous = null;
    for (int i = 0; i < ROUNDS; i++) {
      Acquisition acquisition = ownership.acquire(resource, "o", LEASE);
      assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
      Ownership owned = ((Acquisition.Acquired) acquisition).ownership();
      if (previous != null) {
        assertThat(owned.epoch()).isGreaterThan(previous);
      }
      assertThat(ownership.renew(owned, LEASE)).isInstanceOf(OwnershipRenewal.Renewed.class);
      assertThat(ownership.release(owned))
          .isEqualTo(new FencedOutcome.Accepted(resource, owned.epoch(), false));
      previous = owned.epoch();
    }
    return previous;
  }
}
