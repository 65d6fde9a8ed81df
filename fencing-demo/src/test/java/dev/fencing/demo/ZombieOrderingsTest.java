package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.ZombieScenario;
import dev.fencing.testkit.process.ZombieScenario.Ordering;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's proof with real processes: both orderings end as the table says, and each of the three
 * guards, removed, breaks it.
 */
@FencingDatabase
class ZombieOrderingsTest {

  private static final Duration LEASE = Duration.ofMillis(800);

  @ParameterizedTest
  @EnumSource(Ordering.class)
  void bothOrderingsEndAsTheSeedsTable(Ordering ordering, PostgresFixture.Database db) {
    ZombieScenario.Report report = scenario(db, PostgresBackend.class).run(ordering);
    assertThat(report.row()).isEqualTo(ZombieScenario.expected(ordering));
    assertThat(report.timeline())
        .anySatisfy(line -> assertThat(line).contains("SIGSTOP"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("zombie: complete")
                    .endsWith("refused Superseded epoch=1 current=2"))
        .anySatisfy(line -> assertThat(line).contains("claim").endsWith("ok claimed 1 2"));
  }

  @Test
  void withoutTheOwnerAndEpochCompareAndSetTheZombieCommitLands(PostgresFixture.Database db) {
    Map<Ordering, ZombieScenario.Row> rows = runBoth(db, BrokenVariants.NoCompareAndSet.class);
    assertThat(rows.values()).allSatisfy(r -> assertThat(r.zombieCommit()).isEqualTo("accepted"));
    assertCaught(rows);
  }

  @Test
  void withoutTheReceiversEpochCheckTheZombieCallLands(PostgresFixture.Database db) {
    Map<Ordering, ZombieScenario.Row> rows = runBoth(db, BrokenVariants.NoReceiverEpochCheck.class);
    ZombieScenario.Row newOwnerFirst = rows.get(Ordering.NEW_OWNER_FIRST);
    assertThat(newOwnerFirst.zombieCall()).isEqualTo("accepted, and never superseded");
    assertThat(newOwnerFirst.finalState()).contains("receiver holds {\"by\": \"zombie\"}");
    assertCaught(rows);
  }

  @Test
  void withoutTheIncrementOnClaimBothOwnersHoldEpochOne(PostgresFixture.Database db) {
    Map<Ordering, ZombieScenario.Row> rows = runBoth(db, BrokenVariants.NoIncrementOnClaim.class);
    assertThat(rows.values()).allSatisfy(r -> assertThat(r.finalState()).startsWith("epoch 1"));
    assertCaught(rows);
  }

  private static void assertCaught(Map<Ordering, ZombieScenario.Row> rows) {
    assertThat(rows.entrySet())
        .as("a broken variant must not pass the seed's table in both orderings")
        .anySatisfy(
            e -> assertThat(e.getValue()).isNotEqualTo(ZombieScenario.expected(e.getKey())));
  }

  private static Map<Ordering, ZombieScenario.Row> runBoth(
      PostgresFixture.Database db, Class<? extends FencingBackend> backend) {
    Map<Ordering, ZombieScenario.Row> rows = new EnumMap<>(Ordering.class);
    for (Ordering ordering : Ordering.values()) {
      rows.put(ordering, scenario(db, backend).run(ordering).row());
    }
    return rows;
  }

  private static ZombieScenario scenario(
      PostgresFixture.Database db, Class<? extends FencingBackend> backend) {
    return new ZombieScenario(db, backend, "fencing_demo", LEASE);
  }
}
