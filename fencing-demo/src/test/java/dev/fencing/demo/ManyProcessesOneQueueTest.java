package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.WorkerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Three worker processes and four threads of this JVM drain one queue together. Nobody stalls, so
 * every job must be claimed once, at epoch 1, and completed once; no two workers ever hold the same
 * job at the same epoch.
 */
@FencingDatabase
class ManyProcessesOneQueueTest {

  private static final int JOBS = 600;

  @Test
  void everyJobIsClaimedAndCompletedExactlyOnce(TestSchema schema) throws Exception {
    PostgresBackend backend = new PostgresBackend();
    FencedQueue queue = backend.queue(schema.pooledDataSource(4), schema.name());
    List<Long> ids =
        queue.enqueueAll("shared", IntStream.range(0, JOBS).mapToObj(i -> "{}").toList());
    List<String> claims = Collections.synchronizedList(new ArrayList<>());
    List<WorkerProcess> processes = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      for (int p = 0; p < 3; p++) {
        processes.add(
            WorkerProcess.start("p" + p, PostgresBackend.class, schema.database(), schema.name()));
      }
      for (int p = 0; p < processes.size(); p++) {
        processes.get(p).send("drain shared p" + p + " 60000 " + (p == 0 ? 1 : 5));
      }
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        String owner = "t" + t;
        int batch = t % 2 == 0 ? 1 : 3;
        running.add(
            threads.submit(
                () -> {
                  for (List<Job> jobs =
                          queue.claimBatch("shared", owner, Duration.ofMinutes(1), batch);
                      !jobs.isEmpty();
                      jobs = queue.claimBatch("shared", owner, Duration.ofMinutes(1), batch)) {
                    for (Job job : jobs) {
                      queue.complete(job.lease(), "{\"by\": \"" + owner + "\"}");
                      claims.add(job.id() + ":" + job.epoch().value());
                    }
                  }
                }));
      }
      for (Future<?> thread : running) {
        thread.get();
      }
      for (WorkerProcess process : processes) {
        String reply = process.awaitReply();
        assertThat(reply).startsWith("ok drained");
        String list = reply.substring("ok drained".length()).trim();
        if (!list.isEmpty()) {
          claims.addAll(List.of(list.split(",")));
        }
      }
    } finally {
      threads.shutdownNow();
      processes.forEach(WorkerProcess::close);
    }
    assertThat(claims).doesNotHaveDuplicates().hasSize(JOBS).allMatch(c -> c.endsWith(":1"));
    for (long id : ids) {
      JobSnapshot row = queue.find(id).orElseThrow();
      assertThat(row.state()).isEqualTo(JobState.COMPLETED);
      assertThat(row.epoch()).isEqualTo(1);
      assertThat(row.attempts()).isEqualTo(1);
    }
  }
}
