package dev.fencing.ha;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a user's first use does, in a JVM of its own so that anything logged once per JVM is logged
 * here: installs the schema, enqueues, claims and completes a job, and prints the outcome.
 * Arguments: JDBC URL, user, password, schema.
 */
public final class QuietOnPostgres15Main {

  private QuietOnPostgres15Main() {}

  public static void main(String[] args) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(args[0]);
    ds.setUser(args[1]);
    ds.setPassword(args[2]);
    FencedQueue queue = PostgresFencing.builder(ds).schema(args[3]).build().queue();
    queue.enqueue("emails", "{}");
    Job job = queue.claim("emails", "worker-1", Duration.ofSeconds(30)).orElseThrow();
    FencedOutcome.Accepted done = queue.complete(job.lease(), "{}");
    System.out.println("claimed at " + job.epoch() + ": " + done);
  }
}
