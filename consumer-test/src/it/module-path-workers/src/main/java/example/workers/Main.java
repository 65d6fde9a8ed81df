package example.workers;

import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.memory.InMemoryQueue;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Enqueues a job on an in-memory queue, lets a worker complete it, and prints the job; fails (exits
 * non-zero) when the job was not completed.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    InMemoryQueue queue = InMemoryQueue.builder().build();
    long id = queue.enqueue("emails", "{\"to\": \"ada@example.com\"}");
    CountDownLatch handled = new CountDownLatch(1);
    FencedWorkers workers =
        FencedWorkers.builder(queue)
            .owner("worker-1")
            .queue(
                "emails",
                (job, cancellation) -> {
                  handled.countDown();
                  return "{\"sent\": true}";
                })
            .start();
    boolean inTime = handled.await(30, TimeUnit.SECONDS);
    workers.shutdown(Duration.ofSeconds(10));
    JobSnapshot job = queue.find(id).orElseThrow();
    if (!inTime || job.state() != JobState.COMPLETED) {
      throw new IllegalStateException("the worker did not complete job " + id + ": " + job);
    }
    System.out.println(
        Main.class.getModule().getName()
            + " with "
            + InMemoryQueue.class.getModule().getName()
            + " and "
            + FencedWorkers.class.getModule().getName()
            + ": job "
            + id
            + " "
            + job.state()
            + " "
            + job.result());
  }
}
