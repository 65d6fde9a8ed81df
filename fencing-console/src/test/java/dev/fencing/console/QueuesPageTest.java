package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The queues page, read in a real browser. */
class QueuesPageTest extends ServedConsole {

  @Test
  void aJobEnqueuedAMomentAgoShowsAndItsCountChangesWithoutAReload() {
    fencing.queue().enqueue("mail", "{\"to\": \"a@example.com\"}");
    logIn("victor", VIEWER_PASSWORD);

    assertThat(browser.text("tr[data-queue=mail] [data-k=pending]")).isEqualTo("1");
    browser.script("document.body.setAttribute('data-same-page', 'yes')");

    fencing.queue().enqueue("mail", "{\"to\": \"b@example.com\"}");

    browser.waitFor(
        d -> browser.text("tr[data-queue=mail] [data-k=pending]").equals("2") ? true : null);
    // no reload: the mark set on this page's body is still there
    assertThat(browser.find("body").getAttribute("data-same-page")).isEqualTo("yes");
  }
}
