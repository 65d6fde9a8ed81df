package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Job;
import dev.fencing.JobState;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The operator's buttons, clicked in a real browser: a requeue runs the job again; the same request
 * from a viewer, or without the session's CSRF token, is refused with 403 and changes nothing.
 */
class ActionsInTheBrowserTest extends ServedConsole {

  @Test
  void aFailedJobRequeuedWithTheButtonRunsAgain() {
    long id = failedJob();
    logIn("olivia", OPERATOR_PASSWORD);
    browser.open(url("jobs/" + id));
    assertThat(browser.text("#job-state")).isEqualTo("failed");

    browser.find("#requeue").click();

    browser.waitFor(d -> browser.text("#flash").startsWith("Requeued") ? true : null);
    assertThat(browser.text("#job-state")).isEqualTo("pending");
    Job again = fencing.queue().claim("reports", "worker-2", Duration.ofMinutes(1)).orElseThrow();
    assertThat(again.lease().jobId()).isEqualTo(id);
    assertThat(again.lease().epoch().value()).isEqualTo(2);
    fencing.queue().complete(again.lease(), "{\"pages\": 3}");
    browser.open(url("jobs/" + id));
    assertThat(browser.text("#job-state")).isEqualTo("completed");
  }

  @Test
  void theSameRequestFromAViewerIsRefusedAndChangesNothing() {
    long id = failedJob();
    logIn("victor", VIEWER_PASSWORD);
    browser.open(url("jobs/" + id));
    assertThat(browser.driver.findElements(org.openqa.selenium.By.id("requeue"))).isEmpty();

    // the operator's form, with the viewer's own valid CSRF token
    browser.script(
        "var f = document.createElement('form'); f.method = 'post'; f.action = arguments[0];"
            + " var t = document.createElement('input'); t.type = 'hidden'; t.name = 'csrf';"
            + " t.value = document.querySelector('input[name=csrf]').value; f.appendChild(t);"
            + " document.body.appendChild(f); f.submit();",
        url("jobs/" + id + "/requeue"));

    browser.waitFor(d -> d.getPageSource().contains("403") ? true : null);
    assertThat(browser.driver.getPageSource()).contains("this needs the operator role");
    assertThat(state(id)).isEqualTo(JobState.FAILED);
  }

  @Test
  void theButtonWithoutTheCsrfTokenIsRefusedAndChangesNothing() {
    long id = failedJob();
    logIn("olivia", OPERATOR_PASSWORD);
    browser.open(url("jobs/" + id));

    browser.script("document.querySelectorAll('input[name=csrf]').forEach(e => e.remove())");
    browser.find("#requeue").click();

    browser.waitFor(d -> d.getPageSource().contains("403") ? true : null);
    assertThat(browser.driver.getPageSource()).contains("CSRF");
    assertThat(state(id)).isEqualTo(JobState.FAILED);
  }

  @Test
  void aWrongTokenIsRefusedToo() {
    long id = failedJob();
    logIn("olivia", OPERATOR_PASSWORD);
    browser.open(url("jobs/" + id));

    browser.script(
        "document.querySelectorAll('input[name=csrf]').forEach(e => e.value = 'x' + e.value)");
    browser.find("#requeue").click();

    browser.waitFor(d -> d.getPageSource().contains("403") ? true : null);
    assertThat(state(id)).isEqualTo(JobState.FAILED);
  }

  private long failedJob() {
    long id = fencing.queue().enqueue("reports", "{\"month\": \"2026-11\"}");
    Job job = fencing.queue().claim("reports", "worker-1", Duration.ofMinutes(1)).orElseThrow();
    fencing.admin().fail(job.lease().jobId(), "the printer caught fire");
    assertThat(state(id)).isEqualTo(JobState.FAILED);
    return id;
  }

  private JobState state(long id) {
    return fencing.admin().job(id).orElseThrow().job().state();
  }
}
