package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.JobCodec;
import dev.fencing.JobCodecException;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.JobType;
import dev.fencing.testkit.memory.InMemoryQueue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Typed jobs through the door: a producer enqueues a record, the handler receives it decoded with
 * the claim's epoch, its result is encoded and read back typed; a payload that does not decode ends
 * its job failed at once, counted as failed, without reaching the handler, and the worker goes on.
 */
class TypedJobsTest {

  record SendEmail(String to) {}

  record Sent(String to, long epoch) {}

  /** A codec for the two records, by hand: the runtime's part is tested without Jackson. */
  static final class EmailCodec implements JobCodec {
    private static final Pattern TO =
        Pattern.compile("\\{\"to\": ?\"([^\"]*)\"(, ?\"epoch\": ?(\\d+))?}");

    @Override
    public String encode(Object value) {
      return switch (value) {
        case SendEmail e -> "{\"to\": \"" + e.to() + "\"}";
        case Sent s -> "{\"to\": \"" + s.to() + "\", \"epoch\": " + s.epoch() + "}";
        default -> throw JobCodecException.encoding(value.getClass(), new IllegalStateException());
      };
    }

    @Override
    public <T> T decode(String json, Class<T> type) {
      Matcher m = TO.matcher(json);
      if (!m.matches()) {
        throw new JobCodecException(type, "not an email: " + json);
      }
      Object value =
          type == SendEmail.class
              ? new SendEmail(m.group(1))
              : new Sent(m.group(1), Long.parseLong(m.group(3)));
      return type.cast(value);
    }
  }

  private static final JobType<SendEmail, Sent> SEND =
      JobType.of("emails", SendEmail.class, Sent.class);

  private final InMemoryQueue queue = InMemoryQueue.builder().codec(new EmailCodec()).build();

  @Test
  void aHandlerGetsTheDecodedPayloadAndItsResultIsReadBackTyped() throws Exception {
    long id = queue.enqueue(SEND, new SendEmail("ada@example.com"));
    assertThat(queue.find(id).orElseThrow().payload()).isEqualTo("{\"to\": \"ada@example.com\"}");
    List<SendEmail> received = new CopyOnWriteArrayList<>();
    try (FencedWorkers workers =
        FencedWorkers.builder(queue)
            .owner("w")
            .codec(new EmailCodec())
            .queue(
                SEND,
                (job, cancellation) -> {
                  received.add(job.payload());
                  return new Sent(job.payload().to(), job.epoch().value());
                })
            .start()) {
      awaitState(id, JobState.COMPLETED);
    }
    assertThat(received).containsExactly(new SendEmail("ada@example.com"));
    assertThat(queue.result(SEND, id)).hasValue(new Sent("ada@example.com", 1));
  }

  @Test
  void aPayloadThatDoesNotDecodeFailsItsJobAtOnceAndTheWorkerGoesOn() throws Exception {
    long bad = queue.enqueue("emails", "[\"not\", \"an\", \"email\"]");
    long good = queue.enqueue(SEND, new SendEmail("grace@example.com"));
    List<Long> handled = new CopyOnWriteArrayList<>();
    FencedWorkers.Builder builder =
        FencedWorkers.builder(queue)
            .owner("w")
            .codec(new EmailCodec())
            .queue(
                SEND,
                (job, cancellation) -> {
                  handled.add(job.id());
                  return new Sent(job.payload().to(), job.epoch().value());
                },
                q -> q.concurrency(1).retryDelay(Duration.ZERO));
    try (FencedWorkers workers = builder.start()) {
      awaitState(good, JobState.COMPLETED);
      awaitState(bad, JobState.FAILED);
      assertThat(workers.stats("emails").failed()).isEqualTo(1);
    }
    JobSnapshot failed = queue.find(bad).orElseThrow();
    assertThat(failed.attempts()).as("no retry: it ended at its first attempt").isEqualTo(1);
    assertThat(failed.maxAttempts()).isGreaterThan(1);
    assertThat(failed.lastError())
        .contains("the payload does not decode")
        .contains("not an email: [\"not\", \"an\", \"email\"]");
    assertThat(handled).as("the handler never saw the bad payload").containsExactly(good);
  }

  private void awaitState(long id, JobState state) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (queue.find(id).orElseThrow().state() != state && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(state);
  }
}
