package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.WorkerProcess;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The story the console exists to tell: a worker claims a job and is frozen with SIGSTOP, its lease
 * runs out, another worker reclaims and commits, the first thaws and commits too. The job's page
 * shows both epochs, and the zombie's write refused with its reason.
 */
abstract class ZombieHistoryTest extends ServedConsole {

  abstract PostgresFencing.Engine engine();

  @Override
  PostgresFencing.Builder fencingBuilder(PostgresFencing.Builder builder) {
    return builder.engine(engine());
  }

  @Test
  void aFrozenWorkersLateCommitShowsRefusedUnderItsEpoch() throws Exception {
    long id = fencing.queue().enqueue("invoices", "{\"invoice\": 1042}");
    String line;
    try (WorkerProcess zombie =
            WorkerProcess.start("zombie", ConsoleBackend.class, schema.database(), schema.name());
        WorkerProcess healthy =
            WorkerProcess.start(
                "healthy", ConsoleBackend.class, schema.database(), schema.name())) {
      assertThat(zombie.call("claim invoices worker-a 1000"))
          .startsWith("ok claimed " + id + " 1 ");
      zombie.freeze();
      Instant deadline = Instant.now().plusSeconds(30);
      do {
        line = healthy.call("claim invoices worker-b 60000");
      } while (line.equals("ok none") && Instant.now().isBefore(deadline));
      assertThat(line).startsWith("ok claimed " + id + " 2 ");
      assertThat(healthy.call("complete " + id)).startsWith("ok accepted 2");
      zombie.thaw();
      assertThat(zombie.call("complete " + id)).startsWith("refused");
    }
    logIn("olivia", OPERATOR_PASSWORD);
    browser.open(url("jobs/" + id));

    List<WebElement> claims = browser.driver.findElements(By.cssSelector("#history tbody tr"));
    assertThat(claims).extracting(r -> r.getAttribute("data-epoch")).containsExactly("2", "1");
    assertThat(browser.text("#history tr[data-epoch='2'] .owner")).isEqualTo("worker-b");
    assertThat(browser.text("#history tr[data-epoch='2'] .ended")).isEqualTo("completed");
    assertThat(browser.text("#history tr[data-epoch='1'] .owner")).isEqualTo("worker-a");
    WebElement refusal = browser.find("#refusals tr[data-epoch='1']");
    assertThat(refusal.findElement(By.cssSelector(".owner")).getText()).isEqualTo("worker-a");
    assertThat(refusal.getText()).contains("complete");
    assertThat(refusal.findElement(By.cssSelector(".kind")).getText()).isNotBlank();
    String name = engine().name().toLowerCase(Locale.ROOT).replace('_', '-');
    browser.screenshot(Path.of("..", "docs", "console", "job-history-" + name + ".png"));
  }
}
