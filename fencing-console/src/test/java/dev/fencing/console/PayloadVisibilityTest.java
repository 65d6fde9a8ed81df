package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/** A viewer sees no payload unless the console allows it; an operator does. */
class PayloadVisibilityTest extends ServedConsole {

  @Test
  void aViewerSeesNoPayloadAnOperatorDoes() {
    long id = fencing.queue().enqueue("mail", "{\"card\": \"4111 1111 1111 1111\"}");

    logIn("victor", VIEWER_PASSWORD);
    browser.open(url("jobs/" + id));
    assertThat(browser.driver.findElements(By.id("job-payload"))).isEmpty();
    assertThat(browser.driver.getPageSource()).doesNotContain("4111");
    assertThat(browser.text("#payload-hidden")).contains("operators only");

    browser.driver.manage().deleteAllCookies();
    logIn("olivia", OPERATOR_PASSWORD);
    browser.open(url("jobs/" + id));
    assertThat(browser.text("#job-payload")).contains("4111 1111 1111 1111");
  }

  @Test
  void withoutLoggingInThePagesAskForALogin() {
    browser.open(url("jobs"));
    assertThat(browser.driver.getCurrentUrl()).endsWith("/login");
    assertThat(browser.driver.findElements(By.id("jobs"))).isEmpty();
  }
}
