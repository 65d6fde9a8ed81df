package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An idle worker that waits with {@link FencedQueue#awaitWork} wakes on an enqueue long before its
 * timeout, per queue and per schema, and still gets its jobs when the listening connection is cut.
 * Waits here are a minute, so only a wake-up can end them within the tests' bounds of 10 s.
 */
@FencingDatabase
class WakeupsTest {

  private static final Duration FALLBACK = Duration.ofSeconds(60);
  private static final Duration LEASE = Duration.ofMinutes(5);

  private TestSchema schema;
  private FencedQueue queue;
  private final List<IdleWorker> workers = new ArrayList<>();

  @BeforeEach
  void build(TestSchema schema) {
    this.schema = schema;
    queue = PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
  }

  @AfterEach
  void stopWorkers() throws InterruptedException {
    for (IdleWorker w : workers) {
      w.stop();
    }
  }

  @Test
  void anIdleWorkerClaimsAJobEnqueuedAfterItWentIdleLongBeforeItsPoll() throws Exception {
    IdleWorker worker = idle(queue, "q");
    awaitListening(queue, schema.name());
    Thread.sleep(200); // the worker has claimed nothing and waits its minute

    long id = queue.enqueue("q", "{}");

    assertThat(worker.claimed.get(10, TimeUnit.SECONDS).lease().jobId()).isEqualTo(id);
    assertThat(queue.signalsWork()).isTrue();
  }

  @Test
  void aKeyedEnqueueWakesAnIdleWorkerButATakenKeyWritesNothingToWakeFor() throws Exception {
    queue.enqueue("q", new dev.fencing.KeyedJob("taken", "{}"));
    queue.claim("q", "w0", java.time.Duration.ofMinutes(5)).orElseThrow();
    IdleWorker worker = idle(queue, "q");
    awaitListening(queue, schema.name());
    Thread.sleep(200);

    queue.enqueue("q", new dev.fencing.KeyedJob("taken", "{}"));
    long id = queue.enqueue("q", new dev.fencing.KeyedJob("new", "{}")).id();

    assertThat(worker.claimed.get(10, TimeUnit.SECONDS).lease().jobId()).isEqualTo(id);
  }

  @Test
  void aSignalWakesOnlyWaitersOfItsQueueInItsSchema() throws Exception {
    String other = schema.database().freshSchema("wakeups");
    FencedQueue neighbour =
        PostgresFencing.builder(schema.dataSource()).schema(other).build().queue();
    queue.awaitWork("a", Duration.ZERO);
    awaitListening(queue, schema.name());
    queue.awaitWork("a", Duration.ofSeconds(10)); // the listener's first signal, to everyone
    queue.awaitWork("a", Duration.ZERO);

    queue.enqueue("b", "{}");
    neighbour.enqueue("a", "{}");
    assertThat(queue.awaitWork("a", Duration.ofSeconds(1))).isFalse();

    queue.enqueue("a", "{}");
    assertThat(queue.awaitWork("a", Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void aSignalBetweenTwoWaitsOfAThreadEndsTheSecondAtOnce() throws Exception {
    queue.awaitWork("q", Duration.ZERO);
    awaitListening(queue, schema.name());
    queue.awaitWork("q", Duration.ofSeconds(10));

    queue.enqueue("q", "{}"); // while the thread claims, say
    Thread.sleep(500); // the signal has come and gone before the thread waits again

    assertThat(queue.awaitWork("q", FALLBACK)).isTrue();
  }

  @Test
  void releaseAndFailWithoutDelayNotifyButAFailWithDelayDoesNot() throws Exception {
    try (Connection c = schema.dataSource().getConnection()) {
      listen(c, schema.name());
      long id = queue.enqueue("q", "{}");
      assertThat(payloads(c)).containsExactly("q");

      queue.release(queue.claim("q", "w", LEASE).orElseThrow().lease());
      assertThat(payloads(c)).containsExactly("q");
      queue.fail(queue.claim("q", "w", LEASE).orElseThrow().lease(), "x", Duration.ZERO);
      assertThat(payloads(c)).containsExactly("q");
      queue.fail(queue.claim("q", "w", LEASE).orElseThrow().lease(), "x", Duration.ofHours(1));
      assertThat(payloads(c)).isEmpty();
      assertThat(queue.find(id).orElseThrow().attempts()).isEqualTo(2); // a release counts none
    }
  }

  @Test
  void withNotificationsOffNothingIsNotifiedAndAwaitWorkSleeps() throws Exception {
    FencedQueue quiet =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .notifications(false)
            .build()
            .queue();
    try (Connection c = schema.dataSource().getConnection()) {
      listen(c, schema.name());
      quiet.enqueue("q", "{}");
      quiet.enqueueAll("q", List.of("{}", "{}"));
      assertThat(payloads(c)).isEmpty();
    }
    assertThat(quiet.signalsWork()).isFalse();
    assertThat(quiet.awaitWork("q", Duration.ofMillis(100))).isFalse();
    assertThat(listeners(schema.name())).isEmpty();
  }

  @Test
  void afterTheListenersBackendIsTerminatedTheWorkerStillGetsItsJobsAndWakeUpsResume()
      throws Exception {
    AtomicReference<DataSource> target = new AtomicReference<>(schema.dataSource());
    FencedQueue listening =
        PostgresFencing.builder(Switchable.dataSource(target))
            .schema(schema.name())
            .build()
            .queue();
    IdleWorker worker = idle(listening, "q");
    int first = awaitListening(listening, schema.name());

    target.set(refusing()); // no reconnect until the job below was notified to nobody
    terminate(first);
    awaitUntil(() -> !alive(first));
    long lost = queue.enqueue("q", "{}");
    Thread.sleep(300);
    target.set(schema.dataSource());

    assertThat(worker.claimed.get(10, TimeUnit.SECONDS).lease().jobId()).isEqualTo(lost);
    IdleWorker again = idle(listening, "q");
    int second = awaitListening(listening, schema.name());
    assertThat(second).isNotEqualTo(first);
    Thread.sleep(200);
    long woken = queue.enqueue("q", "{}");
    assertThat(again.claimed.get(10, TimeUnit.SECONDS).lease().jobId()).isEqualTo(woken);
  }

  @Test
  void theListeningConnectionIsGivenBackWhenNobodyWaitsAnyMore() throws Exception {
    FencedQueue lingering =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .listenerLinger(Duration.ofSeconds(1))
            .build()
            .queue();
    // the first wait ends on the listener's first signal, sent once it listens
    assertThat(lingering.awaitWork("q", Duration.ofSeconds(10))).isTrue();
    assertThat(listeners(schema.name())).hasSize(1);
    int first = listeners(schema.name()).getFirst();

    awaitUntil(() -> !alive(first)); // its connection closed: the backend is gone

    assertThat(lingering.awaitWork("q", Duration.ofSeconds(10))).isTrue(); // listens again
    assertThat(listeners(schema.name())).hasSize(1);
    int second = listeners(schema.name()).getFirst();
    awaitUntil(() -> !alive(second));
  }

  @Test
  void badArgumentsNameTheParameter() {
    assertThatThrownBy(() -> queue.awaitWork("Bad-Name", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue")
        .hasMessageContaining("Bad-Name");
    assertThatThrownBy(() -> queue.awaitWork("q", Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout")
        .hasMessageContaining("PT-5S");
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema(schema.name())
                    .listenerLinger(Duration.ofSeconds(-1))
                    .build()
                    .queue())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listenerLinger")
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> PostgresFencing.builder(schema.dataSource()).listenerDataSource(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listenerDataSource");
  }

  /**
   * A worker that claims, and when nothing is there waits a minute for a signal, until it gets a
   * job.
   */
  private IdleWorker idle(FencedQueue on, String queueName) {
    IdleWorker w = new IdleWorker(on, queueName);
    workers.add(w);
    w.thread.start();
    return w;
  }

  private static final class IdleWorker {
    final CompletableFuture<Job> claimed = new CompletableFuture<>();
    final Thread thread;
    volatile boolean running = true;

    IdleWorker(FencedQueue queue, String name) {
      thread =
          Thread.ofPlatform()
              .daemon()
              .unstarted(
                  () -> {
                    try {
                      while (running) {
                        var job = queue.claim(name, "w", LEASE);
                        if (job.isPresent()) {
                          claimed.complete(job.get());
                          return;
                        }
                        // slices, so that stop() ends the worker promptly
                        long end = System.nanoTime() + FALLBACK.toNanos();
                        boolean woken = false;
                        while (running && !woken && System.nanoTime() < end) {
                          woken = queue.awaitWork(name, Duration.ofMillis(100));
                        }
                      }
                    } catch (Exception e) {
                      claimed.completeExceptionally(e);
                    }
                  });
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join(5_000);
    }
  }

  /** Waits until the queue's listener is LISTENing and returns its backend's pid. */
  private int awaitListening(FencedQueue on, String schemaName) throws InterruptedException {
    awaitUntil(() -> !listeners(schemaName).isEmpty());
    return listeners(schemaName).getFirst();
  }

  /** The backends in this database whose last statement was LISTEN on the schema's channel. */
  private List<Integer> listeners(String schemaName) {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select pid from pg_stat_activity where datname = current_database()"
                    + " and query = ? and pid <> pg_backend_pid()")) {
      s.setString(1, "LISTEN \"fencing_" + schemaName + "\"");
      List<Integer> pids = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          pids.add(rs.getInt(1));
        }
      }
      return pids;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether backend {@code pid} still exists, whatever it last ran. */
  private boolean alive(int pid) {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement("select count(*) from pg_stat_activity where pid = ?")) {
      s.setInt(1, pid);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1) > 0;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void terminate(int pid) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select pg_terminate_backend(pid) from pg_stat_activity"
                    + " where pid = ? and datname = current_database()")) {
      s.setInt(1, pid);
      s.executeQuery().close();
    }
  }

  private static void listen(Connection c, String schemaName) throws SQLException {
    c.setAutoCommit(true);
    try (var s = c.createStatement()) {
      s.execute("LISTEN \"fencing_" + schemaName + "\"");
    }
  }

  /** The payloads of the notifications the connection has received, waiting up to 500 ms. */
  private static List<String> payloads(Connection c) throws SQLException {
    var notifications = c.unwrap(org.postgresql.PGConnection.class).getNotifications(500);
    List<String> payloads = new ArrayList<>();
    for (var n : notifications) {
      payloads.add(n.getParameter());
    }
    return payloads;
  }

  private static DataSource refusing() {
    return (DataSource)
        Proxy.newProxyInstance(
            WakeupsTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              throw new SQLException("refused by the test");
            });
  }

  private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 10 s");
      }
      Thread.sleep(20);
    }
  }
}
