package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.JobType;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.runtime.JobContext;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The worker side as beans: a handler whose results carry outbox messages, a receiver named by
 * {@code fencing.receiver} that every result goes to before its commit, and relays per destination.
 */
class OutboxBeansTest {

  /** Bills each job and mails it through the outbox. */
  static final class Invoices implements OutboxQueueHandler {
    @Override
    public String queue() {
      return "invoices";
    }

    @Override
    public HandlerResult handle(Job job, Cancellation cancellation) {
      return HandlerResult.of(
          "{\"billed\": " + job.id() + "}",
          new OutboxMessage("mail", "invoice-" + job.id(), "{\"to\": \"ada\"}"),
          new OutboxMessage("webhooks", "invoice-" + job.id(), "{\"id\": " + job.id() + "}"));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Billing {
    final List<FencedOutbox.Envelope> posted = new CopyOnWriteArrayList<>();

    @Bean
    Invoices invoices() {
      return new Invoices();
    }

    @Bean
    FencedReceiver ledger(PostgresFencing fencing) {
      return fencing.receiver("ledger");
    }

    @Bean
    OutboxRelay mail(PostgresFencing fencing) {
      return OutboxRelay.to("mail", fencing.receiver("mail"));
    }

    @Bean
    OutboxRelay webhooks() {
      return OutboxRelay.to(
          "webhooks",
          envelope -> {
            posted.add(envelope);
            return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
          });
    }
  }

  @Test
  void anOutboxHandlerBeanCommitsMessagesTheRelayBeansSendAndTheNamedReceiverGetsEachResult() {
    String schema = Apps.db().freshSchema("outbox");
    try (ConfigurableApplicationContext app =
        Apps.start(Billing.class, schema, "fencing.receiver=ledger")) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      long id = queue.enqueue("invoices", "{}");
      PostgresFencing fencing = app.getBean(PostgresFencing.class);
      Apps.await(
          "the job completed and both messages were relayed",
          Duration.ofSeconds(20),
          () ->
              queue.find(id).orElseThrow().state() == JobState.COMPLETED
                  && fencing.receiver("mail").newest("invoice-" + id).isPresent()
                  && !app.getBean(Billing.class).posted.isEmpty());

      FencedReceiver.Receipt result = fencing.receiver("ledger").newest(Long.toString(id)).get();
      assertThat(result.payload()).isEqualTo("{\"billed\": " + id + "}");
      assertThat(result.epoch().value()).isEqualTo(1);
      assertThat(fencing.receiver("mail").newest("invoice-" + id).get().payload())
          .isEqualTo("{\"to\": \"ada\"}");
      assertThat(app.getBean(Billing.class).posted)
          .singleElement()
          .satisfies(e -> assertThat(e.payload()).isEqualTo("{\"id\": " + id + "}"));
      assertThat(app.getBean(ManagedWorkers.class).relayStats().sent()).isEqualTo(2);
      MeterRegistry registry = app.getBean(MeterRegistry.class);
      assertThat(
              registry
                  .get("fencing.relay.messages")
                  .tag("outcome", "accepted")
                  .functionCounter()
                  .count())
          .isEqualTo(2);
      assertThat(registry.get("fencing.deliveries").tag("outcome", "accepted").counters())
          .isNotEmpty();
    }
  }

  @Test
  void aReceiverNameWithoutItsBeanStopsTheContextNamingTheBeansThereAre() {
    String schema = Apps.db().freshSchema("outbox");
    assertThatThrownBy(() -> Apps.start(Billing.class, schema, "fencing.receiver=legder"))
        .rootCause()
        .hasMessageStartingWith(
            "fencing.receiver must name a FencedReceiver bean, but was 'legder'; the"
                + " FencedReceiver beans are [ledger]");
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TwoRelaysForOneDestination {
    @Bean
    OutboxRelay first(PostgresFencing fencing) {
      return OutboxRelay.to("mail", fencing.receiver("mail"));
    }

    @Bean
    OutboxRelay second(PostgresFencing fencing) {
      return OutboxRelay.to("mail", fencing.receiver("mail2"));
    }
  }

  @Test
  void twoRelaysForOneDestinationStopTheContextNamingBoth() {
    String schema = Apps.db().freshSchema("outbox");
    assertThatThrownBy(() -> Apps.start(TwoRelaysForOneDestination.class, schema))
        .rootCause()
        .hasMessage(
            "destination 'mail' must have one OutboxRelay bean, but had two: 'first' and 'second'");
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TwoKindsOfHandlerForOneQueue {
    @Bean
    Invoices invoices() {
      return new Invoices();
    }

    @Bean
    QueueHandler<String, String> plain() {
      return new QueueHandler<String, String>() {
        @Override
        public JobType<String, String> type() {
          return JobType.raw("invoices");
        }

        @Override
        public String handle(JobContext<String> job, Cancellation cancellation) {
          return "{}";
        }
      };
    }
  }

  @Test
  void aQueueHandlerAndAnOutboxQueueHandlerForOneQueueStopTheContextNamingBoth() {
    String schema = Apps.db().freshSchema("outbox");
    assertThatThrownBy(() -> Apps.start(TwoKindsOfHandlerForOneQueue.class, schema))
        .rootCause()
        .hasMessage(
            "queue 'invoices' must have one QueueHandler or OutboxQueueHandler bean, but had two:"
                + " 'plain' and 'invoices'");
  }
}
