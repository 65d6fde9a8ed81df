package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups behind PgBouncer in transaction mode, where LISTEN does not hold: with {@link
 * PostgresFencing.Builder#listenerDataSource} the listening connection is a direct session and an
 * idle worker wakes on an enqueue made through PgBouncer; without it, or with notifications off,
 * workers still get their jobs, by polling.
 */
@FencingDatabase
class WakeupsThroughPgBouncerTest {

  /** Only a wake-up ends such a wait within the test's bound of 10 s. */
  private static final Duration LONG_WAIT = Duration.ofSeconds(60);

  private static final Duration LEASE = Duration.ofMinutes(5);
  private static DataSource throughBouncer;
  private final List<Thread> workers = new ArrayList<>();

  @BeforeAll
  static void pool() {
    throughBouncer = PgBouncerProcess.shared().pool(4);
  }

  @AfterEach
  void stopWorkers() throws InterruptedException {
    for (Thread worker : workers) {
      worker.interrupt();
      worker.join(5_000);
    }
  }

  @Test
  void anIdleWorkerWakesOnTheDirectSessionWhileTheQueueGoesThroughPgBouncer(TestSchema schema)
      throws Exception {
    AtomicInteger directConnections = new AtomicInteger();
    FencedQueue queue =
        PostgresFencing.builder(throughBouncer)
            .listenerDataSource(counting(schema.dataSource(), directConnections))
            .schema(schema.name())
            .build()
            .queue();
    CompletableFuture<Job> claimed = worker(queue, LONG_WAIT);
    awaitListening(schema);
    Thread.sleep(200); // the worker has claimed nothing and waits its minute

    long id = queue.enqueue("q", "{}");

    assertThat(claimed.get(10, TimeUnit.SECONDS).id()).isEqualTo(id);
    assertThat(directConnections).as("the listening connection only").hasValue(1);
  }

  @Test
  void withoutADirectSessionWorkersStillGetTheirJobsByPolling(TestSchema schema) throws Exception {
    for (boolean notifications : new boolean[] {true, false}) {
      FencedQueue queue =
          PostgresFencing.builder(throughBouncer)
              .notifications(notifications)
              .schema(schema.name())
              .build()
              .queue();
      CompletableFuture<Job> claimed = worker(queue, Duration.ofMillis(200));
      long id = queue.enqueue("q", "{}");
      assertThat(claimed.get(10, TimeUnit.SECONDS).id())
          .as("with notifications %s", notifications)
          .isEqualTo(id);
    }
  }

  /**
   * A worker that claims, and when nothing is there waits up to {@code wait} for a wake-up, until
   * it gets a job.
   */
  private CompletableFuture<Job> worker(FencedQueue queue, Duration wait) {
    CompletableFuture<Job> claimed = new CompletableFuture<>();
    Thread worker =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try {
                    while (!claimed.isDone()) {
                      queue.claim("q", "w", LEASE).ifPresent(claimed::complete);
                      if (!claimed.isDone()) {
                        queue.awaitWork("q", wait);
                      }
                    }
                  } catch (InterruptedException stopped) {
                    claimed.cancel(false);
                  } catch (RuntimeException e) {
                    claimed.completeExceptionally(e);
                  }
                });
    workers.add(worker);
    return claimed;
  }

  /** Waits until a backend LISTENs on the schema's channel. */
  private static void awaitListening(TestSchema schema) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (listeners(schema) == 0) {
      if (System.nanoTime() > end) {
        throw new AssertionError("nobody LISTENs on the channel of " + schema.name());
      }
      Thread.sleep(20);
    }
  }

  private static int listeners(TestSchema schema) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select count(*) from pg_stat_activity where query = ? and pid <> pg_backend_pid()")) {
      s.setString(1, "LISTEN \"fencing_" + schema.name() + "\"");
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** {@code target}, counting the connections it hands out. */
  private static DataSource counting(DataSource target, AtomicInteger connections) {
    return (DataSource)
        Proxy.newProxyInstance(
            WakeupsThroughPgBouncerTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                connections.incrementAndGet();
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
