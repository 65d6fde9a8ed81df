package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedOffException;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.tuning.LeaseModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What live workers risk and cost: false zombies (a worker that is alive but paused past its lease
 * and is fenced off), analytically and on real leases, and the cost of a heartbeat statement.
 */
final class LeaseTuningLive {

  private LeaseTuningLive() {}

  /**
   * A run of live workers.
   *
   * @param refused how many commits were refused
   * @param predicted how many the drawn pauses and their moments should have cost
   * @param scale the factor every duration was multiplied by (1 = real time)
   * @param worstStall the longest unplanned delay of any worker (a late wake-up or a slow renew),
   *     in scaled time
   */
  record ZombieRun(
      Duration lease, int jobs, int refused, int predicted, double scale, Duration worstStall) {}

  /**
   * The cost of heartbeats on one connection.
   *
   * @param perSecond renew statements one connection sustained per second
   */
  record HeartbeatCost(int renews, double meanMillis, double p99Millis, double perSecond) {}

  /** One simulated job: when it is claimed, its one pause, and when in the job that starts. */
  private record Plan(long pauseNanos, long pauseAtNanos, long startNanos) {}

  /**
   * Runs {@link LeaseTuningSettings#liveJobs()} jobs on real leases, each a worker that starts at a
   * random moment of the first lease, heartbeats every lease / heartbeatsPerLease, pauses once
   * (heartbeats too) for a pause drawn from {@code pauses}, and commits at the end. Time is scaled
   * down so that the lease is at most {@link LeaseTuningSettings#scaledLeaseCap()}.
   */
  static ZombieRun falseZombies(
      FencedQueue queue,
      String queueName,
      Duration lease,
      LeaseModel pauses,
      LeaseTuningSettings settings,
      long seed) {
    int jobs = settings.liveJobs();
    double scale = Math.min(1, settings.scaledLeaseCap().toNanos() / (double) lease.toNanos());
    long scaled = (long) (lease.toNanos() * scale);
    long beat = scaled / settings.heartbeatsPerLease();
    Random random = new Random(seed);
    List<Plan> plans = new ArrayList<>();
    int predicted = 0;
    for (int i = 0; i < jobs; i++) {
      long pause = (long) (pauses.sample(random).toNanos() * scale);
      Plan plan =
          new Plan(
              pause, (long) (random.nextDouble() * scaled), (long) (random.nextDouble() * scaled));
      plans.add(plan);
      predicted += plan.pauseAtNanos() % beat + pause > scaled ? 1 : 0;
    }
    queue.enqueueAll(queueName, Collections.nCopies(jobs, "{}"));
    List<Future<LiveWorker.Outcome>> outcomes = new ArrayList<>();
    // platform threads: a late wake-up is then the machine's doing, not a virtual-thread queue's
    try (ExecutorService threads =
        Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory())) {
      for (Plan plan : plans) {
        LiveWorker worker = new LiveWorker(queue, queueName, scaled, beat, plan);
        outcomes.add(threads.submit(worker::run));
      }
    }
    int refused = 0;
    long stall = 0;
    for (Future<LiveWorker.Outcome> future : outcomes) {
      LiveWorker.Outcome outcome = join(future);
      refused += outcome.accepted() ? 0 : 1;
      stall = Math.max(stall, outcome.stallNanos());
    }
    return new ZombieRun(lease, jobs, refused, predicted, scale, Duration.ofNanos(stall));
  }

  /** One simulated worker process on one thread, so that its pause stops its heartbeat too. */
  private static final class LiveWorker {

    /**
     * @param stallNanos the worst unplanned delay: a late wake-up or a slow renew
     */
    record Outcome(boolean accepted, long stallNanos) {}

    private final FencedQueue queue;
    private final String queueName;
    private final long lease;
    private final long beat;
    private final Plan plan;
    private long stall;

    LiveWorker(FencedQueue queue, String queueName, long lease, long beat, Plan plan) {
      this.queue = queue;
      this.queueName = queueName;
      this.lease = lease;
      this.beat = beat;
      this.plan = plan;
    }

    Outcome run() throws InterruptedException {
      sleepUntil(System.nanoTime() + plan.startNanos());
      Lease current =
          queue
              .claim(queueName, "live", Duration.ofNanos(lease))
              .orElseThrow(() -> new IllegalStateException("no job left in " + queueName))
              .lease();
      long start = System.nanoTime();
      long pauseAt = start + plan.pauseAtNanos();
      long workEnd = start + lease;
      long nextBeat = start + beat;
      boolean paused = false;
      boolean fenced = false;
      while (true) {
        long now = System.nanoTime();
        if (!paused && now >= pauseAt) {
          // a stop-the-world pause: neither the handler nor the heartbeat runs
          sleepUntil(now + plan.pauseNanos());
          paused = true;
          workEnd += plan.pauseNanos();
        } else if (now >= workEnd) {
          return new Outcome(commit(queue, current), stall);
        } else if (now >= nextBeat) {
          if (!fenced) {
            try {
              current = renew(current);
            } catch (FencedOffException e) {
              fenced = true; // the handler does not know yet; its commit will be refused
            }
          }
          nextBeat = System.nanoTime() + beat;
        } else {
          sleepUntil(Math.min(Math.min(workEnd, nextBeat), paused ? Long.MAX_VALUE : pauseAt));
        }
      }
    }

    private Lease renew(Lease current) {
      long begin = System.nanoTime();
      try {
        return queue.renew(current, Duration.ofNanos(lease));
      } finally {
        stall = Math.max(stall, System.nanoTime() - begin);
      }
    }

    private void sleepUntil(long deadline) throws InterruptedException {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        Thread.sleep(Duration.ofNanos(left));
      }
      stall = Math.max(stall, System.nanoTime() - deadline);
    }
  }

  private static boolean commit(FencedQueue queue, Lease lease) {
    try {
      queue.complete(lease, "{}");
      return true;
    } catch (FencedOffException e) {
      return false;
    }
  }

  /**
   * Renews {@link LeaseTuningSettings#renews()} leases one after another on a single connection,
   * after a warm-up, and returns the time per statement.
   */
  static HeartbeatCost heartbeatCost(
      PostgresFixture.Database db, String schema, LeaseTuningSettings settings) {
    try (HikariDataSource one = BenchDatabase.pool(db, 1)) {
      FencedQueue queue =
          PostgresFencing.builder(one).schema(schema).install(false).build().queue();
      queue.enqueueAll("heartbeat", Collections.nCopies(100, "{}"));
      List<Lease> leases =
          new ArrayList<>(
              queue.claimBatch("heartbeat", "beater", Duration.ofHours(1), 100).stream()
                  .map(Job::lease)
                  .toList());
      renew(queue, leases, settings.renews() / 5, new long[settings.renews() / 5]);
      long[] nanos = new long[settings.renews()];
      long elapsed = renew(queue, leases, nanos.length, nanos);
      Arrays.sort(nanos);
      double mean = Arrays.stream(nanos).average().orElse(0) / 1e6;
      double p99 = nanos[(int) Math.floor(0.99 * (nanos.length - 1))] / 1e6;
      return new HeartbeatCost(nanos.length, mean, p99, nanos.length / (elapsed / 1e9));
    }
  }

  /** Renews round-robin, recording each statement's time; returns the total time. */
  private static long renew(FencedQueue queue, List<Lease> leases, int count, long[] nanos) {
    long begin = System.nanoTime();
    for (int i = 0; i < count; i++) {
      int k = i % leases.size();
      long t0 = System.nanoTime();
      leases.set(k, queue.renew(leases.get(k), Duration.ofHours(1)));
      nanos[i] = System.nanoTime() - t0;
    }
    return System.nanoTime() - begin;
  }

  private static <T> T join(Future<T> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("a live worker failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
