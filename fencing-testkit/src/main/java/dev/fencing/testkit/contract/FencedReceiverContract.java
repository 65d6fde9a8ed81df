package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedReceiver.Receipt;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The rules every {@link FencedReceiver} keeps. A backend's test subclasses this once and says how
 * to build its receiver, empty at the start of each test. The static checks are public so that a
 * test can prove they fail for receivers that break a rule. Payloads are written the way {@code
 * jsonb} prints them, so every backend returns them unchanged.
 *
 * @since 0.1
 */
public abstract class FencedReceiverContract {

  /** Returns the receiver under test, empty at the start of each test. */
  protected abstract FencedReceiver receiver();

  /** How many deliveries each of the concurrent test's threads makes. */
  protected int deliveriesPerThread() {
    return 40;
  }

  /** A JSON payload that names {@code n}, in the form {@code jsonb} prints. */
  protected static String payload(long n) {
    return "{\"n\": " + n + "}";
  }

  @Test
  void firstDeliveryIsAccepted() {
    checkFirstDeliveryIsAccepted(receiver());
  }

  @Test
  void newerEpochIsAcceptedAndSupersedes() {
    checkNewerEpochSupersedes(receiver());
  }

  @Test
  void sameEpochAgainIsAcceptedAsRepeat() {
    checkSameEpochIsRepeat(receiver());
  }

  @Test
  void olderEpochIsRefusedWithTheEpochThatWon() {
    checkOlderEpochIsRefused(receiver());
  }

  @Test
  void fenceRefusesOlderDeliveries() {
    checkFenceRefusesOlderDeliveries(receiver());
  }

  @Test
  void fenceKeepsThePayload() {
    checkFenceKeepsThePayload(receiver());
  }

  @Test
  void fenceOfAnUnknownKeyHoldsNull() {
    checkFenceOfAnUnknownKeyHoldsNull(receiver());
  }

  @Test
  void fenceAtTheSameEpochIsARepeat() {
    checkFenceAtTheSameEpochIsARepeat(receiver());
  }

  @Test
  void fenceBelowTheHeldEpochIsSuperseded() {
    checkFenceBelowTheHeldEpochIsSuperseded(receiver());
  }

  @Test
  void fenceRefusesABadKeyOrEpochAndWritesNothing() {
    FencedReceiver receiver = receiver();
    receiver.deliver("k", Epoch.of(1), payload(1));

    assertThatThrownBy(() -> receiver.fence(" ", Epoch.of(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must");
    assertThatThrownBy(() -> receiver.fence("k", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch must not be null, but was null");
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
  }

  @Test
  void keysAreIndependent() {
    FencedReceiver receiver = receiver();
    receiver.deliver("a", Epoch.of(5), payload(5));

    assertThat(receiver.deliver("b", Epoch.of(1), payload(1)))
        .isEqualTo(new FencedOutcome.Accepted("b", Epoch.of(1), false));
    assertThat(receiver.newest("a")).contains(new Receipt("a", Epoch.of(5), payload(5)));
    assertThat(receiver.newest("b")).contains(new Receipt("b", Epoch.of(1), payload(1)));
  }

  @Test
  void newestIsEmptyForUnknownKey() {
    assertThat(receiver().newest("never-delivered")).isEmpty();
  }

  /** Key, epoch, payload, the parameter the refusal names, the value it shows. */
  private record BadDelivery(
      @Nullable String key,
      @Nullable Epoch epoch,
      @Nullable String payload,
      String parameter,
      String shown) {}

  private static Stream<BadDelivery> badDeliveries() {
    String tooLong = "k".repeat(501);
    return Stream.of(
        new BadDelivery(null, Epoch.of(2), payload(2), "key", "null"),
        new BadDelivery("", Epoch.of(2), payload(2), "key", "''"),
        new BadDelivery("   ", Epoch.of(2), payload(2), "key", "'   '"),
        new BadDelivery(tooLong, Epoch.of(2), payload(2), "key", "'kkkk"),
        new BadDelivery("k", null, payload(2), "epoch", "null"),
        new BadDelivery("k", Epoch.of(2), null, "payload", "null"),
        new BadDelivery("k", Epoch.of(2), "{\"n\": ", "payload", "'{\"n\": '"),
        new BadDelivery("k", Epoch.of(2), "not json", "payload", "'not json'"),
        new BadDelivery("k", Epoch.of(2), "", "payload", "''"),
        new BadDelivery("k", Epoch.of(2), "   ", "payload", "'   '"),
        new BadDelivery("k", Epoch.of(2), "{", "payload", "'{'"),
        new BadDelivery("k", Epoch.of(2), "{'a':1}", "payload", "'{'a':1}'"),
        new BadDelivery("k", Epoch.of(2), "[1,]", "payload", "'[1,]'"),
        new BadDelivery("k", Epoch.of(2), "{} {}", "payload", "'{} {}'"),
        new BadDelivery("k", Epoch.of(2), "[1] x", "payload", "'[1] x'"),
        new BadDelivery("k", Epoch.of(2), "NaN", "payload", "'NaN'"),
        new BadDelivery("k", Epoch.of(2), "\"a\0b\"", "payload", "'\"a\\0b\"'"),
        new BadDelivery("k", Epoch.of(2), "[" + "1".repeat(200), "payload", "'[1111"),
        // 120 characters are shown in full, with no "..."
        new BadDelivery(
            "k", Epoch.of(2), "[" + "1".repeat(119), "payload", "'[" + "1".repeat(119) + "'"));
  }

  @TestFactory
  Stream<DynamicTest> badInputIsRefusedAndNothingWritten() {
    return badDeliveries()
        .map(
            bad ->
                DynamicTest.dynamicTest(
                    "key=" + bad.key() + ", epoch=" + bad.epoch() + ", payload=" + bad.payload(),
                    () ->
                        checkRefusedAndNothingWritten(
                            bad.key(), bad.epoch(), bad.payload(), bad.parameter(), bad.shown())));
  }

  private void checkRefusedAndNothingWritten(
      @Nullable String key,
      @Nullable Epoch epoch,
      @Nullable String payload,
      String parameter,
      String shown) {
    FencedReceiver receiver = receiver();
    receiver.deliver("k", Epoch.of(1), payload(1));

    assertThatThrownBy(() -> receiver.deliver(key, epoch, payload))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " must")
        .hasMessageContaining("but was " + shown);
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
  }

  /**
   * An escaped NUL and a lone surrogate escape are JSON text that {@code jsonb} refuses: a backend
   * may accept them or refuse them as a bad payload, but never fail otherwise or half write.
   */
  @TestFactory
  Stream<DynamicTest> jsonThatJsonbRefusesIsAcceptedOrRefusedAsABadPayload() {
    return Stream.of("\"\\u0000\"", "\"\\ud800\"", "{\"a\": \"x\\udc00y\"}")
        .map(
            payload ->
                DynamicTest.dynamicTest(
                    "payload=" + payload, () -> checkAcceptedOrRefusedAsABadPayload(payload)));
  }

  private void checkAcceptedOrRefusedAsABadPayload(String payload) {
    FencedReceiver receiver = receiver();
    receiver.deliver("k", Epoch.of(1), payload(1));

    Throwable thrown = catchThrowable(() -> receiver.deliver("k", Epoch.of(2), payload));

    if (thrown == null) {
      assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(2), payload));
    } else {
      assertThat(thrown)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("payload must")
          .hasMessageContaining("but was '" + payload + "'");
      assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
    }
  }

  @Test
  void newestRefusesABadKey() {
    assertThatThrownBy(() -> receiver().newest(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must");
  }

  @Test
  void concurrentDeliveriesEndWithTheLargestEpochAndItsPayload() throws Exception {
    FencedReceiver receiver = receiver();
    int threads = 8;
    ConcurrentLinkedQueue<Long> tried = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<FencedOutcome> outcomes = new ConcurrentLinkedQueue<>();
    CyclicBarrier start = new CyclicBarrier(threads);
    runAll(
        threads,
        () -> {
          start.await();
          for (int i = 0; i < deliveriesPerThread(); i++) {
            long epoch = ThreadLocalRandom.current().nextLong(1, 200);
            tried.add(epoch);
            outcomes.add(receiver.deliver("hot", Epoch.of(epoch), payload(epoch)));
          }
          return null;
        });

    long max = tried.stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(receiver.newest("hot")).contains(new Receipt("hot", Epoch.of(max), payload(max)));
    assertThat(outcomes)
        .filteredOn(o -> o instanceof FencedOutcome.Superseded)
        .allSatisfy(
            o -> assertThat(((FencedOutcome.Superseded) o).current()).isGreaterThan(o.epoch()));
  }

  @Test
  void concurrentFirstDeliveriesAtOneEpochHaveExactlyOneNonRepeat() throws Exception {
    FencedReceiver receiver = receiver();
    int threads = 8;
    for (int round = 0; round < 10; round++) {
      String key = "fresh-" + round;
      CyclicBarrier start = new CyclicBarrier(threads);
      List<FencedOutcome> outcomes =
          runAll(
              threads,
              () -> {
                start.await();
                return receiver.deliver(key, Epoch.of(3), payload(3));
              });

      assertThat(outcomes).allMatch(FencedOutcome::isAccepted);
      assertThat(outcomes).filteredOn(o -> !((FencedOutcome.Accepted) o).repeat()).hasSize(1);
    }
  }

  // The checks below are public and static so that a test can run them on broken receivers.

  /** A first delivery is accepted, not as a repeat, and is the newest. */
  public static void checkFirstDeliveryIsAccepted(FencedReceiver receiver) {
    assertThat(receiver.deliver("job-1", Epoch.of(1), payload(1)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(1), false));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(1), payload(1)));
  }

  /** A newer epoch is accepted and its payload replaces the older one. */
  public static void checkNewerEpochSupersedes(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(1), payload(1));

    assertThat(receiver.deliver("job-1", Epoch.of(3), payload(3)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(3), false));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(3), payload(3)));
  }

  /** The same epoch again (a worker's retry) is accepted as a repeat. */
  public static void checkSameEpochIsRepeat(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(2), payload(20));

    assertThat(receiver.deliver("job-1", Epoch.of(2), payload(21)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(2), true));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(2), payload(21)));
  }

  /** An older epoch is refused with the epoch that won, and changes nothing. */
  public static void checkOlderEpochIsRefused(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(4), payload(4));

    assertThat(receiver.deliver("job-1", Epoch.of(3), payload(3)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(3), Epoch.of(4), null));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(4), payload(4)));
  }

  /**
   * A fence above the held epoch is accepted, and every later delivery below it is refused as
   * superseded by it (what a cancel does to a zombie's late delivery); a newer one still lands.
   */
  public static void checkFenceRefusesOlderDeliveries(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(2), payload(2));

    assertThat(receiver.fence("job-1", Epoch.of(5)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(5), false));
    assertThat(receiver.deliver("job-1", Epoch.of(2), payload(22)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(2), Epoch.of(5), null));
    assertThat(receiver.deliver("job-1", Epoch.of(4), payload(4)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(4), Epoch.of(5), null));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(5), payload(2)));
    assertThat(receiver.deliver("job-1", Epoch.of(6), payload(6)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(6), false));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(6), payload(6)));
  }

  /** A fence keeps the newest accepted payload; its receipt names the fence's epoch. */
  public static void checkFenceKeepsThePayload(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(2), payload(2));
    receiver.deliver("job-1", Epoch.of(3), payload(3));

    receiver.fence("job-1", Epoch.of(7));

    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(7), payload(3)));
  }

  /** A fence of a key never delivered to holds the JSON payload {@code null}, and fences it. */
  public static void checkFenceOfAnUnknownKeyHoldsNull(FencedReceiver receiver) {
    assertThat(receiver.fence("job-1", Epoch.of(4)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(4), false));

    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(4), "null"));
    assertThat(receiver.deliver("job-1", Epoch.of(3), payload(3)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(3), Epoch.of(4), null));
  }

  /**
   * The same fence again (a retry after a lost answer) is accepted as a repeat, changing nothing.
   */
  public static void checkFenceAtTheSameEpochIsARepeat(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(2), payload(2));
    receiver.fence("job-1", Epoch.of(4));

    assertThat(receiver.fence("job-1", Epoch.of(4)))
        .isEqualTo(new FencedOutcome.Accepted("job-1", Epoch.of(4), true));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(4), payload(2)));
  }

  /**
   * A fence below the held epoch is answered superseded by the held one and changes nothing: the
   * key stays at the newer epoch, which fences older deliveries all the same.
   */
  public static void checkFenceBelowTheHeldEpochIsSuperseded(FencedReceiver receiver) {
    receiver.deliver("job-1", Epoch.of(5), payload(5));

    assertThat(receiver.fence("job-1", Epoch.of(3)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(3), Epoch.of(5), null));
    assertThat(receiver.newest("job-1")).contains(new Receipt("job-1", Epoch.of(5), payload(5)));
    assertThat(receiver.deliver("job-1", Epoch.of(4), payload(4)))
        .isEqualTo(new FencedOutcome.Superseded("job-1", Epoch.of(4), Epoch.of(5), null));
  }

  /** Work that one thread of {@link #runAll} runs. */
  protected interface Task<T> {
    T call() throws Exception;
  }

  /** Runs {@code task} on {@code threads} threads at once and returns their results. */
  protected static <T> List<T> runAll(int threads, Task<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(pool.submit(task::call));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
