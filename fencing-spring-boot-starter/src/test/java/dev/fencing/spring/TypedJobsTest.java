package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.JobType;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * A typed handler bean: payloads and results are records, written to the store by the application's
 * own {@code JsonMapper} (through the injected queue and through the workers); a payload that does
 * not decode ends its job failed at once, counted, and the next job runs.
 */
class TypedJobsTest {

  record SendEmail(String toAddress) {}

  record Sent(String toAddress, long epoch) {}

  static final JobType<SendEmail, Sent> EMAILS = JobType.of("emails", SendEmail.class, Sent.class);

  static final class EmailHandler implements QueueHandler<SendEmail, Sent> {
    final List<SendEmail> received = new CopyOnWriteArrayList<>();

    @Override
    public JobType<SendEmail, Sent> type() {
      return EMAILS;
    }

    @Override
    public Sent handle(JobContext<SendEmail> job, Cancellation cancellation) {
      received.add(job.payload());
      return new Sent(job.payload().toAddress(), job.epoch().value());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    EmailHandler emailHandler() {
      return new EmailHandler();
    }
  }

  /** The same application with a JsonMapper of its own, which writes snake_case. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class SnakeCaseApp extends App {
    @Bean
    JsonMapper jsonMapper() {
      return JsonMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .build();
    }
  }

  @Test
  void theApplicationsJsonMapperWritesThePayloadsAndTheResults() {
    try (ConfigurableApplicationContext app =
        Apps.start(SnakeCaseApp.class, Apps.db().freshSchema("typed"))) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      long id = queue.enqueue(EMAILS, new SendEmail("ada@example.com"));
      awaitState(queue, id, JobState.COMPLETED);

      JobSnapshot job = queue.find(id).orElseThrow();
      assertThat(job.payload()).isEqualTo("{\"to_address\": \"ada@example.com\"}");
      assertThat(job.result())
          .contains("\"to_address\": \"ada@example.com\"", "\"epoch\": 1")
          .doesNotContain("toAddress");
      assertThat(app.getBean(EmailHandler.class).received)
          .containsExactly(new SendEmail("ada@example.com"));
      assertThat(queue.result(EMAILS, id)).hasValue(new Sent("ada@example.com", 1));
    }
  }

  @Test
  void aPayloadThatDoesNotDecodeEndsItsJobFailedAtOnceIsCountedAndTheNextJobRuns() {
    try (ConfigurableApplicationContext app =
        Apps.start(App.class, Apps.db().freshSchema("typed"), "fencing.max-attempts=5")) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      long bad = queue.enqueue("emails", "[1]");
      awaitState(queue, bad, JobState.FAILED);
      long next = queue.enqueue(EMAILS, new SendEmail("grace@example.com"));
      awaitState(queue, next, JobState.COMPLETED);

      JobSnapshot failed = queue.find(bad).orElseThrow();
      assertThat(failed.attempts()).as("no retry of the 5 it had").isEqualTo(1);
      assertThat(failed.lastError())
          .startsWith(
              "the payload does not decode: cannot decode JSON as a "
                  + SendEmail.class.getName()
                  + ": Cannot deserialize value of type");
      ManagedWorkers workers = app.getBean(ManagedWorkers.class);
      Apps.await(
          "the failure counted",
          Duration.ofSeconds(10),
          () -> workers.stats().get("emails").failed() == 1);
      assertThat(workers.stats().get("emails").completed()).isEqualTo(1);
      assertThat(app.getBean(EmailHandler.class).received)
          .as("the handler never saw the bad payload")
          .containsExactly(new SendEmail("grace@example.com"));
      // without a mapper of the application's own, properties are named as the record names them
      assertThat(queue.find(next).orElseThrow().payload())
          .isEqualTo("{\"toAddress\": \"grace@example.com\"}");
    }
  }

  private static void awaitState(FencedQueue queue, long id, JobState state) {
    Apps.await(
        "job " + id + " " + state,
        Duration.ofSeconds(20),
        () -> queue.find(id).orElseThrow().state() == state);
  }
}
