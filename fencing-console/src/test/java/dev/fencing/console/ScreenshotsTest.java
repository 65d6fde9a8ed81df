package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.QueueLimits;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Fills a schema as a small production one looks, and writes the console's main pages to
 * docs/console/*.png for the README.
 */
class ScreenshotsTest extends ServedConsole {

  static final Path DOCS = Path.of("..", "docs", "console");

  @Test
  void theMainPages() throws Exception {
    var queue = fencing.queue();
    for (int i = 0; i < 40; i++) {
      long id = queue.enqueue("invoices", "{\"invoice\": " + (1000 + i) + "}");
      Job job =
          queue.claim("invoices", "billing-7d9f-" + (i % 3), Duration.ofMinutes(5)).orElseThrow();
      if (i % 9 == 4) {
        fencing.admin().fail(id, "PSP answered 502 Bad Gateway after 3 tries");
      } else {
        queue.complete(job.lease(), "{\"charged\": true}");
      }
    }
    for (int i = 0; i < 12; i++) {
      queue.enqueue("invoices", "{\"invoice\": " + (2000 + i) + "}");
    }
    queue.setLimits("mail", QueueLimits.maxRunning(4));
    for (int i = 0; i < 25; i++) {
      queue.enqueue(
          "mail",
          "{\"to\": \"user" + i + "@example.com\"}",
          JobOptions.DEFAULT.withPriority(i % 3));
    }
    for (int i = 0; i < 4; i++) {
      queue.claim("mail", "mailer-" + i, Duration.ofMinutes(5));
    }
    queue.enqueue(
        "reports", "{\"month\": \"2026-11\"}", JobOptions.DEFAULT.withDelay(Duration.ofHours(6)));
    logIn("olivia", OPERATOR_PASSWORD);

    browser.open(url(""));
    assertThat(browser.text("tr[data-queue=invoices] [data-k=pending]")).isEqualTo("12");
    browser.screenshot(DOCS.resolve("queues.png"));

    browser.open(url("jobs?state=failed"));
    assertThat(browser.text("#jobs")).contains("PSP answered 502");
    browser.screenshot(DOCS.resolve("failed-jobs.png"));
  }
}
