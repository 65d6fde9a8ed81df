package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOffException;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Twelve workers claim from a queue limited to 3 running jobs, with leases of 300 ms, and renew,
 * stall past their leases (their late commits are refused) or commit at random, while a sampler
 * counts, again and again, the queue's jobs holding a valid lease at the database's clock: never
 * more than 3, on either engine.
 */
@FencingDatabase
class RunningLimitUnderLoadTest {

  private static final int LIMIT = 3;
  private static final int WORKERS = 12;

  /**
   * Longer than a renewal's pause (up to 200 ms) with room for a busy machine: at 300 ms, other
   * test JVMs on the 2 cores made most honest commits arrive after their leases.
   */
  private static final Duration LEASE = Duration.ofMillis(900);

  private static final long RUN_MILLIS = 5_000;

  private static final java.util.Map<String, Integer> LOST =
      new java.util.concurrent.ConcurrentHashMap<>();

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void validLeasesNeverOutnumberTheLimit(PostgresFencing.Engine engine, TestSchema schema)
      throws Exception {
    DataSource pool = schema.pooledDataSource(WORKERS + 2);
    FencedQueue queue = RunningLimitTest.fencing(engine, pool, schema).queue();
    queue.enqueueAll("q", Collections.nCopies(5_000, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(LIMIT));
    long end = System.currentTimeMillis() + RUN_MILLIS;
    AtomicInteger claimed = new AtomicInteger();
    AtomicInteger completed = new AtomicInteger();
    AtomicInteger zombiesRefused = new AtomicInteger();
    ExecutorService workers = Executors.newFixedThreadPool(WORKERS + 1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        String owner = "w" + (w % 4); // owners shared by several workers: slots are per lease
        running.add(
            workers.submit(
                () -> {
                  while (System.currentTimeMillis() < end) {
                    List<Job> jobs =
                        queue.claimBatch(
                            "q", owner, LEASE, 1 + ThreadLocalRandom.current().nextInt(2));
                    claimed.addAndGet(jobs.size());
                    if (jobs.isEmpty()) {
                      pause(20);
                    }
                    for (Job job : jobs) {
                      work(queue, job, completed, zombiesRefused);
                    }
                  }
                  return null;
                }));
      }
      Future<String> sampler = workers.submit(() -> sample(engine, schema, end));
      for (Future<?> f : running) {
        f.get();
      }
      String violation = sampler.get();
      System.out.printf(
          "%s: %d claimed, %d completed, %d zombie commits refused, lost under load %s%n",
          engine, claimed.get(), completed.get(), zombiesRefused.get(), LOST);
      LOST.clear();
      assertThat(violation).as("valid leases above the limit of " + LIMIT).isNull();
      assertThat(completed.get()).as("work got done").isGreaterThan(5);
      assertThat(zombiesRefused.get()).as("zombies were refused").isPositive();
    } finally {
      workers.shutdownNow();
    }
  }

  private static void work(
      FencedQueue queue, Job job, AtomicInteger completed, AtomicInteger zombiesRefused) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    Lease lease = job.lease();
    int choice = random.nextInt(10);
    try {
      if (choice < 2) {
        // a stall: no renewal, past the lease, then the zombie's commit
        pause(LEASE.toMillis() + 100 + random.nextInt(100));
        try {
          queue.complete(lease, "{}");
        } catch (FencedOffException e) {
          zombiesRefused.incrementAndGet();
        }
        return;
      }
      int renewals = choice < 7 ? random.nextInt(4) : 0;
      for (int i = 0; i < renewals; i++) {
        pause(50 + random.nextInt(150));
        lease = queue.renew(lease, LEASE);
      }
      pause(random.nextInt(100));
      queue.complete(lease, "{}");
      completed.incrementAndGet();
    } catch (FencedOffException e) {
      // the lease ran out under load: that holder is a zombie now
      LOST.merge(e.refusal().getClass().getSimpleName(), 1, Integer::sum);
    }
  }

  /** Null, or the count and the rows of a sample above the limit. */
  private static String sample(PostgresFencing.Engine engine, TestSchema schema, long end)
      throws Exception {
    String count = RunningLimitTest.validLeasesSql(engine, schema.name(), "count(*)");
    int samples = 0;
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      while (System.currentTimeMillis() < end) {
        int valid;
        try (ResultSet r = s.executeQuery(count)) {
          r.next();
          valid = r.getInt(1);
        }
        samples++;
        if (valid > LIMIT) {
          return valid + " valid leases at sample " + samples + ": " + rows(engine, schema, s);
        }
      }
    }
    System.out.println(engine + ": " + samples + " samples");
    return null;
  }

  private static String rows(PostgresFencing.Engine engine, TestSchema schema, Statement s)
      throws Exception {
    String what =
        engine == PostgresFencing.Engine.UPDATE_IN_PLACE
            ? "j.id, j.epoch, j.owner, j.lease_expires_at, x.t"
            : "h.job_id, h.epoch, c.owner, c.lease_expires_at, x.t";
    List<String> rows = new ArrayList<>();
    try (ResultSet r =
        s.executeQuery(RunningLimitTest.validLeasesSql(engine, schema.name(), what))) {
      while (r.next()) {
        rows.add(
            r.getString(1)
                + "@"
                + r.getString(2)
                + " "
                + r.getString(3)
                + " until "
                + r.getString(4)
                + " (at "
                + r.getString(5)
                + ")");
      }
    }
    return rows.toString();
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
