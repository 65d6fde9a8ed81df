package dev.fencing.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.etcd.EtcdCluster;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.zookeeper.ZooKeeperProcesses;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Seed 002 for real, once per coordination backend: every account's balance ends exact although a
 * frozen producer wakes up and sends a debit the account's new owner already applied. The same
 * scene against a ledger without the epoch check applies that debit twice.
 */
@FencingDatabase
class LedgerExampleTest {

  static final String HEADER =
      "| backend | requests | debits applied | requests applied twice | zombie epoch → new owner's"
          + " | zombie's late debits refused | balances |";

  @Test
  void postgresOwnershipKeepsEveryBalanceExact(TestSchema schema) throws Exception {
    LedgerScene.Result result =
        LedgerScene.play(
            "postgres",
            "postgres:" + schema.name() + "_coordination",
            schema,
            Duration.ofMillis(1500),
            true);
    assertExact(result);
  }

  private static void assertExact(LedgerScene.Result result) {
    report(result);
    assertThat(result.exact()).as(result.row()).isTrue();
    assertThat(result.zombieRefused()).isEqualTo(1);
    assertThat(result.takeoverEpoch()).isGreaterThan(result.zombieEpoch());
  }

  @Test
  void etcdOwnershipKeepsEveryBalanceExact(TestSchema schema) throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      LedgerScene.Result result =
          LedgerScene.play(
              "etcd",
              "etcd:" + String.join(",", etcd.endpoints()),
              schema,
              Duration.ofSeconds(2),
              true);
      assertExact(result);
    }
  }

  @Test
  void zooKeeperOwnershipKeepsEveryBalanceExact(TestSchema schema) throws Exception {
    try (ZooKeeperProcesses zookeeper = ZooKeeperProcesses.standalone("ledger")) {
      LedgerScene.Result result =
          LedgerScene.play(
              "zookeeper",
              "zookeeper:" + zookeeper.connectString(),
              schema,
              Duration.ofMillis(1500),
              true);
      assertExact(result);
    }
  }

  @Test
  void withoutTheLedgersEpochCheckTheZombiesDebitIsAppliedTwice(TestSchema schema)
      throws Exception {
    LedgerScene.Result result =
        LedgerScene.play(
            "postgres, ledger without epoch check",
            "postgres:" + schema.name() + "_coordination",
            schema,
            Duration.ofMillis(1500),
            false);
    report(result);
    assertThat(result.exact()).isFalse();
    assertThat(result.requestsAppliedTwice()).isEqualTo(1);
    assertThat(result.zombieRefused()).isZero();
  }

  private static void report(LedgerScene.Result result) {
    System.out.println(HEADER);
    System.out.println(result.row());
  }
}
