package dev.fencing.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Job;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups: an enqueue, a release and a failure without delay wake a waiter at once; a signal
 * between two waits of one thread ends the second at once; with notifications off a wait sleeps its
 * timeout. Bounds are functional (a wake-up within 10 s against a wait of a minute).
 */
class InMemoryWakeUpsTest {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final InMemoryQueue queue = InMemoryQueue.builder().build();

  @Test
  void anEnqueueWakesAWaiterLongBeforeItsTimeout() throws Exception {
    assertThat(queue.signalsWork()).isTrue();
    CompletableFuture<Boolean> woken = waitInAnotherThread("q");
    Thread.sleep(200);
    queue.enqueue("other", "{}");
    Thread.sleep(100);
    assertThat(woken).as("another queue's signal wakes nobody here").isNotDone();

    queue.enqueue("q", "{}");

    assertThat(woken.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aSignalBetweenTwoWaitsOfOneThreadEndsTheSecondAtOnce() throws Exception {
    assertThat(queue.awaitWork("q", Duration.ZERO)).as("nothing yet").isFalse();
    queue.enqueue("q", "{}");
    long start = System.nanoTime();
    assertThat(queue.awaitWork("q", MINUTE)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(queue.awaitWork("q", Duration.ofMillis(50))).as("that signal is spent").isFalse();
  }

  @Test
  void aReleaseAndAFailureWithoutDelaySignalButAFailureWithADelayDoesNot() throws Exception {
    InMemoryQueue three = InMemoryQueue.builder().maxAttempts(3).build();
    three.enqueue("q", "{}");
    three.awaitWork("q", Duration.ZERO);
    Job job = three.claim("q", "w1", MINUTE).orElseThrow();
    three.fail(job.lease(), "later", Duration.ofHours(1));
    assertThat(three.awaitWork("q", Duration.ofMillis(50))).isFalse();

    InMemoryQueue now = InMemoryQueue.builder().build();
    now.enqueue("q", "{}");
    now.awaitWork("q", Duration.ZERO);
    Job first = now.claim("q", "w1", MINUTE).orElseThrow();
    now.release(first.lease());
    assertThat(now.awaitWork("q", MINUTE)).isTrue();
    Job second = now.claim("q", "w1", MINUTE).orElseThrow();
    now.fail(second.lease(), "again", Duration.ZERO);
    assertThat(now.awaitWork("q", MINUTE)).isTrue();
  }

  @Test
  void withNotificationsOffAWaitSleepsItsTimeout() throws Exception {
    InMemoryQueue polled = InMemoryQueue.builder().notifications(false).build();
    assertThat(polled.signalsWork()).isFalse();
    polled.enqueue("q", "{}");
    long start = System.nanoTime();
    assertThat(polled.awaitWork("q", Duration.ofMillis(200))).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
  }

  private CompletableFuture<Boolean> waitInAnotherThread(String name) {
    CompletableFuture<Boolean> woken = new CompletableFuture<>();
    Thread.ofPlatform()
        .start(
            () -> {
              try {
                woken.complete(queue.awaitWork(name, MINUTE));
              } catch (Throwable e) {
                woken.completeExceptionally(e);
              }
            });
    return woken;
  }
}
