package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Job;
import dev.fencing.KeyedJob;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.NoAlertPresentException;

/**
 * Payloads, keys, errors and owner names are user data: a {@code <script>} in any of them is shown
 * as text, and runs nowhere.
 */
class EscapingTest extends ServedConsole {

  static final String SCRIPT = "<script>alert(1)</script>";
  static final String IMG = "<img src=x onerror=alert(2)>";

  @Test
  void scriptsInPayloadKeyErrorAndOwnerRenderAsText() {
    long id =
        fencing
            .queue()
            .enqueue("mail", new KeyedJob(SCRIPT, "{\"note\": \"" + SCRIPT + IMG + "\"}"))
            .id();
    Job job = fencing.queue().claim("mail", SCRIPT, Duration.ofMinutes(1)).orElseThrow();
    fencing.queue().fail(job.lease(), SCRIPT + IMG, Duration.ofHours(1));
    fencing.queue().claim("mail", IMG, Duration.ofMinutes(1));
    logIn("olivia", OPERATOR_PASSWORD);

    browser.open(url("jobs/" + id));
    noAlert();
    assertThat(browser.text("#job-key")).isEqualTo(SCRIPT);
    assertThat(browser.text("#job-error")).isEqualTo(SCRIPT + IMG);
    assertThat(browser.text("#job-payload")).contains(SCRIPT + IMG);
    assertThat(browser.text("#history")).contains(SCRIPT);

    browser.open(url("jobs?queue=mail"));
    noAlert();
    assertThat(browser.text("#jobs")).contains(SCRIPT).contains(SCRIPT + IMG);

    browser.open(
        url(
            "jobs?key="
                + java.net.URLEncoder.encode(SCRIPT, java.nio.charset.StandardCharsets.UTF_8)));
    noAlert();
    assertThat(browser.find("input[name=key]").getAttribute("value")).isEqualTo(SCRIPT);
  }

  private static void noAlert() {
    assertThatThrownBy(() -> browser.driver.switchTo().alert())
        .isInstanceOf(NoAlertPresentException.class);
    Object scripts = browser.script("return document.scripts.length");
    // only the console's own console.js
    assertThat(scripts).isEqualTo(1L);
  }
}
