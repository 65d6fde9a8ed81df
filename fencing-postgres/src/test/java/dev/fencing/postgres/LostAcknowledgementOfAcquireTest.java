package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acquire committed but its reply was lost; the automatic retry found the resource held, by the
 * caller's own name at the new epoch, and could not tell itself from another process of that name:
 * it would report Held, and the caller would wait out an ownership nobody used. The retry now finds
 * its first try's acquisition by the call's token and returns it.
 */
@FencingDatabase
class LostAcknowledgementOfAcquireTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private TestSchema schema;
  private FlakyProxy proxy;
  private ResourceOwnership owners;

  /** The schema resolved here is the test's only one: a test method's own would be another. */
  @BeforeEach
  void start(TestSchema schema) {
    this.schema = schema;
    proxy = FlakyProxy.inFrontOf(schema.database());
    owners =
        PostgresFencing.builder(proxy.database().dataSource())
            .schema(schema.name())
            .retryWait(Duration.ofMillis(10))
            .build()
            .ownership();
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  @Test
  void theRetriedFirstAcquisitionReturnsTheEpochItsFirstTryTook() {
    proxy.loseNextAcknowledgement("INSERT");
    Acquisition acquisition = owners.acquire("account-ack", "p1", LONG);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    Ownership owned = ((Acquisition.Acquired) acquisition).ownership();
    assertThat(owned.epoch()).isEqualTo(Epoch.FIRST);
    assertThat(row("account-ack")).containsEntry("epoch", 1L).containsEntry("owner", "p1");
    assertThat(owners.renew(owned, LONG).isRenewed()).isTrue();
  }

  @Test
  void theRetriedTakeoverReturnsTheEpochItsFirstTryTook() {
    Ownership before =
        ((Acquisition.Acquired) owners.acquire("account-ack2", "p1", LONG)).ownership();
    owners.release(before);

    proxy.loseNextAcknowledgement("INSERT");
    Acquisition acquisition = owners.acquire("account-ack2", "p1", LONG);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    Ownership owned = ((Acquisition.Acquired) acquisition).ownership();
    assertThat(owned.epoch()).isEqualTo(before.epoch().next());
    assertThat(row("account-ack2")).containsEntry("epoch", 2L);
  }

  @Test
  void aRetriedReleaseIsARepeatAndARetriedRenewalHolds() {
    Ownership owned =
        ((Acquisition.Acquired) owners.acquire("account-ack3", "p1", LONG)).ownership();
    proxy.loseNextAcknowledgement("UPDATE");
    OwnershipRenewal renewal = owners.renew(owned, LONG);
    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(renewal.isRenewed()).isTrue();

    proxy.loseNextAcknowledgement("UPDATE");
    FencedOutcome release = owners.release(owned);
    assertThat(proxy.lostAcknowledgements()).isEqualTo(2);
    assertThat(release).isEqualTo(new FencedOutcome.Accepted("account-ack3", owned.epoch(), true));
    assertThat(owners.holder("account-ack3")).isEmpty();
  }

  private Map<String, Object> row(String resource) {
    List<Map<String, Object>> rows =
        Rows.select(
            schema.dataSource(),
            schema.name(),
            "select owner, epoch from fencing_resource where name = ?",
            resource);
    assertThat(rows).hasSize(1);
    return rows.getFirst();
  }
}
