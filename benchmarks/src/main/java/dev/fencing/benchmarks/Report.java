package dev.fencing.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/** Formats benchmark results as Markdown tables, with ratios and the targets. */
final class Report {

  /** One JMH result: jobs per second and claim latency percentiles. */
  record Throughput(
      String mode,
      int batch,
      int threads,
      double jobsPerSecond,
      String claimP50,
      String claimP99) {}

  /** db-scheduler and the worker pool at the same thread count. */
  record Peer(int threads, double dbScheduler, double ours) {}

  private Report() {}

  static String throughputTable(List<Throughput> rows) {
    StringBuilder md = new StringBuilder("## End to end: claim, no-op, complete\n\n");
    md.append(
        "`library`: each thread calls `claimBatch` and `complete`/`completeAll`. `raw`: the same"
            + " SQL through plain JDBC. `pool`: the pool as it was before the runtime (one batched"
            + " claimer, one batched committer, no heartbeats) feeds the threads. `runtime`: one"
            + " `FencedWorkers` with as many handler threads, a prefetch of four batches, a 3 s lease"
            + " renewed by heartbeats every second. Claim latency is per claim statement (n/a for"
            + " `pool` and `runtime`, whose claimer runs on its own thread).\n\n");
    md.append("| mode | batch | threads | jobs/s | claim p50 (ms) | claim p99 (ms) |\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (Throughput r : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %,.0f | %s | %s |%n",
              r.mode(),
              r.batch(),
              r.threads(),
              r.jobsPerSecond(),
              r.claimP50(),
              r.claimP99()));
    }
    md.append('\n');
    double logSum = 0;
    int pairs = 0;
    for (Throughput r : rows) {
      if (!r.mode().equals("runtime")) {
        continue;
      }
      for (Throughput b : rows) {
        if (b.mode().equals("pool") && b.batch() == r.batch() && b.threads() == r.threads()) {
          logSum += Math.log(r.jobsPerSecond() / b.jobsPerSecond());
          pairs++;
        }
      }
      rows.stream()
          .filter(
              b -> b.mode().equals("pool") && b.batch() == r.batch() && b.threads() == r.threads())
          .findFirst()
          .ifPresent(
              b ->
                  md.append(
                      String.format(
                          Locale.ROOT,
                          "- batch %d, %d threads: runtime with heartbeats / pool before it ="
                              + " %.2f%n",
                          r.batch(),
                          r.threads(),
                          r.jobsPerSecond() / b.jobsPerSecond())));
    }
    if (pairs > 0) {
      md.append(
          String.format(
              Locale.ROOT,
              "- geometric mean over those %d pairs: %.2f%n",
              pairs,
              Math.exp(logSum / pairs)));
    }
    return md.append('\n').toString();
  }

  static String peerTable(List<Peer> peers) {
    StringBuilder md = new StringBuilder("## db-scheduler at equal threads\n\n");
    md.append(
        "db-scheduler 16.12.0, lock-and-fetch polling, no-op one-time tasks inserted before the"
            + " scheduler starts; ours is the `runtime` row at the same thread count (batch 100).\n\n");
    md.append("| threads | db-scheduler jobs/s | ours jobs/s | ours / db-scheduler |\n");
    md.append("|---:|---:|---:|---:|\n");
    for (Peer p : peers) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %,.0f | %,.0f | %.2f |%n",
              p.threads(),
              p.dbScheduler(),
              p.ours(),
              p.ours() / p.dbScheduler()));
    }
    return md.append('\n').toString();
  }

  static String processTable(List<ProcessScaling.Row> rows) {
    StringBuilder md = new StringBuilder("## Several worker processes on one queue\n\n");
    md.append(
        "Each process is a `FencedWorkers` (batch 100, prefetch 400) with its own handler threads"
            + " doing no-op jobs; after a warm-up, the rate is committed jobs over the same window in"
            + " all processes. Per job: statements by kind (the runtime's counters), transactions"
            + " (`pg_stat_database.xact_commit`, which backends flush about once a second: ±10 % over a 10 s window, meaningless over 1 s), claims that"
            + " returned nothing, CPU of the worker JVMs (and of that their JIT compiler and GC/VM"
            + " threads) and of the database's client backends (utime + stime from /proc; the"
            + " server's WAL writer and other background processes are left out), and"
            + " `pg_stat_activity` samples of active backends waiting on a lock (Lock or LWLock;"
            + " the most frequent waits of any kind in brackets).\n\n");
    md.append(processRows(rows));
    md.append('\n').append(cpuBound(rows));
    return md.append('\n').toString();
  }

  /**
   * With no-op handlers nothing waits but the CPU: the rate cannot exceed the cores over the CPU
   * one job takes, worker and database together. Said per row, so the table explains itself.
   */
  static String cpuBound(List<ProcessScaling.Row> rows) {
    int cores = Runtime.getRuntime().availableProcessors();
    StringBuilder md =
        new StringBuilder(
            "CPU bound: with no-op handlers a job costs only CPU, so on "
                + cores
                + " cores the rate is at most "
                + cores
                + " cores / (worker CPU + PostgreSQL CPU per job):\n\n");
    for (ProcessScaling.Row r : rows) {
      double micros =
          r.cpuPerThousand(r.workerCpuNanos()) + r.cpuPerThousand(r.pg().backendCpuNanos());
      md.append(
          String.format(
              Locale.ROOT,
              "- %d × %d: %.1f + %.1f = %.1f µs/job → at most %,.0f jobs/s; measured %,.0f (%.0f %%"
                  + " of the bound; the rest of the machine's CPU went elsewhere)%n",
              r.processes(),
              r.threads(),
              r.cpuPerThousand(r.workerCpuNanos()),
              r.cpuPerThousand(r.pg().backendCpuNanos()),
              micros,
              cores * 1e6 / micros,
              r.jobsPerSecond(),
              100 * r.jobsPerSecond() / (cores * 1e6 / micros)));
    }
    return md.toString();
  }

  /**
   * The process-scaling rows with their costs per job; the ratio is to the nearest row with one
   * process above it, so that interleaved rounds compare within the round.
   */
  static String processRows(List<ProcessScaling.Row> rows) {
    StringBuilder md =
        new StringBuilder(
            "| processes | threads each | jobs/s | vs 1 process | claim / job | commit / job |"
                + " renew / job | txn / job | empty claims | worker CPU µs/job | of which JIT + GC | PG CPU µs/job |"
                + " lock-wait samples / active |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    double one = Double.NaN;
    for (ProcessScaling.Row r : rows) {
      if (r.processes() == 1) {
        one = r.jobsPerSecond();
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %,.0f | %.2f | %.4f | %.4f | %.4f | %.4f | %d | %.1f | %.1f + %.1f | %.1f | %d / %d %s|%n",
              r.processes(),
              r.threads(),
              r.jobsPerSecond(),
              r.jobsPerSecond() / one,
              r.perJob(r.claimStatements()),
              r.perJob(r.commitStatements()),
              r.perJob(r.renewStatements()),
              r.perJob(r.pg().transactions()),
              r.emptyClaims(),
              r.cpuPerThousand(r.workerCpuNanos()),
              r.cpuPerThousand(r.jitCpuNanos()),
              r.cpuPerThousand(r.gcCpuNanos()),
              r.cpuPerThousand(r.pg().backendCpuNanos()),
              r.lockWaitSamples(),
              r.pg().active(),
              r.pg().topWaits()));
    }
    return md.toString();
  }

  static String targets(
      List<Throughput> rows, List<Peer> peers, List<ProcessScaling.Row> processes) {
    StringBuilder md =
        new StringBuilder("## Targets\n\n| target | measured | met |\n|---|---|---|\n");
    OptionalDouble runtime8 = rate(rows, "runtime", 100, 8);
    target(md, "≥ 15,000 jobs/s with batching at 8 threads", runtime8.orElse(Double.NaN), 15_000);
    for (Peer p : peers) {
      if (p.threads() >= 8) {
        target(
            md, "≥ 3× db-scheduler at " + p.threads() + " threads", p.ours() / p.dbScheduler(), 3);
      }
    }
    if (processes.size() > 1) {
      ProcessScaling.Row last = processes.getLast();
      target(
          md,
          "≥ 0.9× with " + last.processes() + " processes vs 1",
          last.jobsPerSecond() / processes.getFirst().jobsPerSecond(),
          0.9);
    }
    double best =
        rows.stream()
            .filter(r -> r.mode().equals("runtime") && r.batch() == 100)
            .mapToDouble(Throughput::jobsPerSecond)
            .max()
            .orElse(Double.NaN);
    rate(rows, "runtime", 100, 32)
        .ifPresent(r32 -> target(md, "≥ 0.9× best at 32 threads (runtime)", r32 / best, 0.9));
    for (int t : new int[] {1, 4, 16}) {
      OptionalDouble lib = rate(rows, "library", 1, t);
      OptionalDouble raw = rate(rows, "raw", 1, t);
      if (lib.isPresent() && raw.isPresent()) {
        target(
            md,
            "batch 1 ≥ 0.9× raw SQL at " + t + " threads",
            lib.getAsDouble() / raw.getAsDouble(),
            0.9);
      }
    }
    return md.append('\n').toString();
  }

  private static void target(StringBuilder md, String what, double measured, double goal) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s |%n",
            what,
            measured >= 100
                ? String.format(Locale.ROOT, "%,.0f", measured)
                : String.format(Locale.ROOT, "%.2f", measured),
            measured >= goal ? "yes" : "**no**"));
  }

  private static OptionalDouble rate(List<Throughput> rows, String mode, int batch, int threads) {
    return rows.stream()
        .filter(r -> r.mode().equals(mode) && r.batch() == batch && r.threads() == threads)
        .mapToDouble(Throughput::jobsPerSecond)
        .findFirst();
  }
}
