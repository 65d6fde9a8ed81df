package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.JavaProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application instance in a second JVM, frozen with {@code SIGSTOP} in its handler past its
 * lease, while a healthy instance takes the job over and finishes it: thawed, the frozen one's
 * handler runs on and delivers with its old lease; the receiver refuses it, its runtime never
 * commits it, and the job and receiver keep the healthy instance's result.
 */
@Timeout(120)
class ZombieInstanceTest {

  /**
   * On platform threads the thawed handler, which ignores its interrupt, reaches the receiver and
   * is refused there (Superseded). On virtual threads the JDK closes a socket when a virtual thread
   * with its interrupt set blocks on it, so the cancelled handler's delivery may fail at its own
   * connection instead (or reach the receiver on a connection taken after the pool cleared the
   * interrupt); either way nothing stale is accepted.
   */
  @ParameterizedTest(name = "virtual threads: {0}")
  @ValueSource(booleans = {false, true})
  void aFrozenInstanceIsFencedOffWhenThawed(boolean virtualThreads) {
    PostgresFixture.Database db = Apps.db();
    String schema = db.freshSchema("zombie");
    PostgresFencing fencing = PostgresFencing.builder(db.dataSource()).schema(schema).build();
    FencedQueue queue = fencing.queue();
    long id;
    String last;
    try (JavaProcess zombie =
        JavaProcess.start(
            "zombie",
            DeliveringApp.class,
            List.of(
                db.jdbcUrl(),
                db.user(),
                db.password(),
                schema,
                "zombie",
                "1500ms",
                Boolean.toString(virtualThreads)))) {
      zombie.await(0, "ready"::equals, Duration.ofSeconds(60));
      id = queue.enqueue(DeliveringApp.QUEUE, "{}");
      int handling = zombie.await(0, ("handling " + id + " 1")::equals, Duration.ofSeconds(10));
      zombie.freeze();

      try (ConfigurableApplicationContext healthy =
          DeliveringApp.start(
              DeliveringApp.properties(
                  db.jdbcUrl(), db.user(), db.password(), schema, "healthy", "0s"))) {
        Apps.await(
            "the healthy instance completed the job",
            Duration.ofSeconds(15),
            () -> queue.find(id).orElseThrow().state() == JobState.COMPLETED);

        zombie.thaw();
        if (!virtualThreads) {
          int delivered =
              zombie.await(
                  handling, l -> l.startsWith("delivered " + id + " 1 "), Duration.ofSeconds(10));
          assertThat(zombie.lines().get(delivered)).contains("Superseded");
        }
        Apps.await(
            "the zombie's runtime ended its claim",
            Duration.ofSeconds(10),
            () -> stats(zombie).contains("inFlight=0"));
      }
      last = stats(zombie);
      if (virtualThreads) {
        // either its delivery failed at its own connection, or it reached the receiver and was
        // refused there: never accepted
        assertThat(zombie.lines())
            .filteredOn(l -> l.startsWith("delivered " + id + " 1 "))
            .allMatch(l -> l.contains("Superseded"));
      }
      System.out.println("zombie's lines: " + zombie.lines());
      zombie.send("exit");
      zombie.await(0, "closed"::equals, Duration.ofSeconds(30));
    }

    // its runtime gave the claim up by its own clock (abandoned), or had its renewal refused
    assertThat(last).contains("completed=0").containsAnyOf("fencedOff=1", "abandoned=1");
    JobSnapshot job = queue.find(id).orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.COMPLETED);
    assertThat(job.owner()).isEqualTo("healthy");
    assertThat(job.epoch()).isEqualTo(2);
    assertThat(job.result()).isEqualTo("{\"by\": \"healthy\"}");
    FencedReceiver.Receipt receipt =
        fencing.receiver("mail").newest(String.valueOf(job.id())).orElseThrow();
    assertThat(receipt.epoch().value()).isEqualTo(2);
    assertThat(receipt.payload()).isEqualTo("{\"by\": \"healthy\"}");
  }

  private static String stats(JavaProcess zombie) {
    int from = zombie.lines().size();
    zombie.send("stats");
    int line = zombie.await(from, l -> l.startsWith("stats"), Duration.ofSeconds(5));
    return zombie.lines().get(line);
  }
}
