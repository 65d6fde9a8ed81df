package example.workers;

import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.JobType;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.memory.InMemoryQueue;
import java.time.Duration;

/**
 * Enqueues a typed job and a payload that does not decode on an in-memory queue, lets a worker run
 * them with the codec that {@code JobCodec.discover()} finds on the module path (fencing-jackson's),
 * and prints what happened; fails (exits non-zero) unless the typed job completed with its result
 * and the other ended failed at once, counted, with the decoder's message.
 */
public final class Main {

  /** A job's payload: its package is open to Jackson (module-info), so it need not be public. */
  record SendEmail(String to) {}

  /** A job's result. */
  record Sent(String to, long epoch) {}

  static final JobType<SendEmail, Sent> EMAILS = JobType.of("emails", SendEmail.class, Sent.class);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    InMemoryQueue queue = InMemoryQueue.builder().build();
    long id = queue.enqueue(EMAILS, new SendEmail("ada@example.com"));
    long bad = queue.enqueue("emails", "[1]");
    FencedWorkers workers =
        FencedWorkers.builder(queue)
            .owner("worker-1")
            .queue(
                EMAILS,
                (job, cancellation) -> new Sent(job.payload().to(), job.epoch().value()),
                q -> q.concurrency(1))
            .start();
    try (workers) {
      awaitEnd(queue, id);
      awaitEnd(queue, bad);
    }
    long failed = workers.stats("emails").failed(); // counted by the time close() returns
    JobSnapshot job = queue.find(id).orElseThrow();
    JobSnapshot undecodable = queue.find(bad).orElseThrow();
    Sent sent = queue.result(EMAILS, id).orElse(null);
    if (job.state() != JobState.COMPLETED
        || !new Sent("ada@example.com", 1).equals(sent)
        || undecodable.state() != JobState.FAILED
        || undecodable.attempts() != 1
        || failed != 1
        || !String.valueOf(undecodable.lastError()).startsWith("the payload does not decode: ")) {
      throw new IllegalStateException(
          "the worker did not run the typed jobs as it should: "
              + job
              + ", result "
              + sent
              + "; "
              + undecodable
              + ", failed "
              + failed);
    }
    System.out.println(
        Main.class.getModule().getName()
            + " with "
            + InMemoryQueue.class.getModule().getName()
            + ", "
            + FencedWorkers.class.getModule().getName()
            + " and the codec of "
            + queue.codec().getClass().getModule().getName()
            + ": job "
            + id
            + " "
            + job.state()
            + " "
            + sent
            + "; job "
            + bad
            + " "
            + undecodable.state()
            + " at attempt "
            + undecodable.attempts()
            + ", counted failed: "
            + failed
            + ", "
            + undecodable.lastError().lines().findFirst().orElseThrow());
  }

  private static void awaitEnd(InMemoryQueue queue, long id) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!ended(queue.find(id).orElseThrow()) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  private static boolean ended(JobSnapshot job) {
    return job.state() == JobState.COMPLETED || job.state() == JobState.FAILED;
  }
}
