package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.ZombieScenario;
import dev.fencing.testkit.process.ZombieScenario.Ordering;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The seed's proof with real processes: both orderings end as the table says (on the default
 * engine), and each of the three guards, removed, breaks it on each engine ({@link BrokenVariants}
 * on the update-in-place one, {@link AppendOnlyBrokenVariants} on the append-only one).
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

  // Each broken variant runs in the ordering that shows its break (the zombie's commit lands in
  // both, the receiver's missing check shows when the new owner calls first, both owners hold
  // epoch 1 in both), on each engine: two JVMs and a lease's wait per run.

  @ParameterizedTest
  @ValueSource(
      classes = {
        BrokenVariants.NoCompareAndSet.class,
        AppendOnlyBrokenVariants.NoCompareAndSet.class
      })
  void withoutTheOwnerAndEpochCompareAndSetTheZombieCommitLands(
      Class<? extends FencingBackend> backend, PostgresFixture.Database db) {
    ZombieScenario.Row row = caught(db, backend, Ordering.ZOMBIE_FIRST);
    assertThat(row.zombieCommit()).isEqualTo("accepted");
  }

  @ParameterizedTest
  @ValueSource(
      classes = {
        BrokenVariants.NoReceiverEpochCheck.class,
        AppendOnlyBrokenVariants.NoReceiverEpochCheck.class
      })
  void withoutTheReceiversEpochCheckTheZombieCallLands(
      Class<? extends FencingBackend> backend, PostgresFixture.Database db) {
    ZombieScenario.Row row = caught(db, backend, Ordering.NEW_OWNER_FIRST);
    assertThat(row.zombieCall()).isEqualTo("accepted, and never superseded");
    assertThat(row.finalState()).contains("receiver holds {\"by\": \"zombie\"}");
  }

  @ParameterizedTest
  @ValueSource(
      classes = {
        BrokenVariants.NoIncrementOnClaim.class,
        AppendOnlyBrokenVariants.NoIncrementOnClaim.class
      })
  void withoutTheIncrementOnClaimBothOwnersHoldEpochOne(
      Class<? extends FencingBackend> backend, PostgresFixture.Database db) {
    ZombieScenario.Row row = caught(db, backend, Ordering.NEW_OWNER_FIRST);
    assertThat(row.finalState()).startsWith("epoch 1");
  }

  /** Runs {@code ordering} on {@code backend}, which must not end as the seed's table says. */
  private static ZombieScenario.Row caught(
      PostgresFixture.Database db, Class<? extends FencingBackend> backend, Ordering ordering) {
    ZombieScenario.Row row = scenario(db, backend).run(ordering).row();
    assertThat(row)
        .as("a broken variant must not pass the seed's table")
        .isNotEqualTo(ZombieScenario.expected(ordering));
    return row;
  }

  private static ZombieScenario scenario(
      PostgresFixture.Database db, Class<? extends FencingBackend> backend) {
    return new ZombieScenario(db, backend, "fencing_demo", LEASE);
  }
}
