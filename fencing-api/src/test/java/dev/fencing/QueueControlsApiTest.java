package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API of the queue controls (issue 36): {@link JobOptions} (bounds named with their values,
 * copies that set one thing and clear what it replaces, value equality), the options of a {@link
 * KeyedJob}, {@link CancelResult}, the {@link FencedOutcome.Cancelled} refusal, and the defaults a
 * backend without the controls inherits ({@code enqueue} with options, {@code cancel}, {@code
 * FencedReceiver.fence}).
 */
class QueueControlsApiTest {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static final Instant NOON = Instant.parse("2030-01-01T12:00:00Z");

  @Test
  void theDefaultIsClaimableAtOnceAtPriorityZero() {
    JobOptions d = JobOptions.DEFAULT;

    assertThat(d.runAt()).isEmpty();
    assertThat(d.delay()).isEmpty();
    assertThat(d.priority()).isZero();
    assertThat(d.isDefault()).isTrue();
    assertThat(d).hasToString("JobOptions[priority=0]");
    assertThat(JobOptions.ofPriority(0)).isEqualTo(d).hasSameHashCodeAs(d);
  }

  @Test
  void eachOptionAloneMakesTheOptionsNotTheDefault() {
    assertThat(JobOptions.at(NOON).isDefault()).isFalse();
    assertThat(JobOptions.after(Duration.ZERO).isDefault()).isFalse();
    assertThat(JobOptions.ofPriority(1).isDefault()).isFalse();
    assertThat(JobOptions.ofPriority(-1).isDefault()).isFalse();
  }

  @Test
  void aRunTimeOrADelayReplacesTheOtherAndKeepsThePriority() {
    JobOptions at = JobOptions.ofPriority(4).withDelay(Duration.ofMinutes(1)).withRunAt(NOON);
    assertThat(at.runAt()).contains(NOON);
    assertThat(at.delay()).isEmpty();
    assertThat(at.priority()).isEqualTo(4);
    assertThat(at).hasToString("JobOptions[runAt=2030-01-01T12:00:00Z, priority=4]");

    JobOptions after = at.withDelay(Duration.ofMinutes(2));
    assertThat(after.runAt()).isEmpty();
    assertThat(after.delay()).contains(Duration.ofMinutes(2));
    assertThat(after.priority()).isEqualTo(4);
    assertThat(after).hasToString("JobOptions[delay=PT2M, priority=4]");

    assertThat(after.withPriority(-3).delay()).contains(Duration.ofMinutes(2));
    assertThat(at.withPriority(-3).runAt()).contains(NOON);
    assertThat(at.withPriority(-3).priority()).isEqualTo(-3);
  }

  @Test
  void runTimesAreTakenUpToTheirBoundsAndRefusedBeyondThem() {
    assertThat(JobOptions.at(JobOptions.MIN_RUN_AT).runAt()).contains(JobOptions.MIN_RUN_AT);
    assertThat(JobOptions.at(JobOptions.MAX_RUN_AT).runAt()).contains(JobOptions.MAX_RUN_AT);
    String bounds = "runAt must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z, but was ";
    assertThatThrownBy(() -> JobOptions.at(JobOptions.MIN_RUN_AT.minusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(bounds + "1969-12-31T23:59:59.999999999Z");
    assertThatThrownBy(() -> JobOptions.at(JobOptions.MAX_RUN_AT.plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(bounds + "9999-12-31T23:59:59.000000001Z");
    assertThatThrownBy(() -> JobOptions.at(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(bounds + "null");
  }

  @Test
  void delaysAndPrioritiesAreTakenUpToTheirBoundsAndRefusedBeyondThem() {
    assertThat(JobOptions.after(Duration.ZERO).delay()).contains(Duration.ZERO);
    assertThat(JobOptions.after(JobOptions.MAX_DELAY).delay()).contains(JobOptions.MAX_DELAY);
    assertThatThrownBy(() -> JobOptions.after(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("delay must be between PT0S and PT87600H, but was PT-0.000000001S");
    assertThatThrownBy(() -> JobOptions.after(JobOptions.MAX_DELAY.plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("delay must be between");
    assertThatThrownBy(() -> JobOptions.after(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was null");

    assertThat(JobOptions.ofPriority(JobOptions.MIN_PRIORITY).priority()).isEqualTo(-10);
    assertThat(JobOptions.ofPriority(JobOptions.MAX_PRIORITY).priority()).isEqualTo(10);
    assertThatThrownBy(() -> JobOptions.ofPriority(-11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("priority must be between -10 and 10, but was -11");
    assertThatThrownBy(() -> JobOptions.ofPriority(11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("priority must be between -10 and 10, but was 11");
  }

  @Test
  void optionsAreEqualExactlyWhenEveryOptionIs() {
    JobOptions one = JobOptions.at(NOON).withPriority(2);
    JobOptions same = JobOptions.ofPriority(2).withRunAt(NOON);

    assertThat(one).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(one).isNotEqualTo(one.withPriority(3));
    assertThat(one.hashCode()).isNotEqualTo(one.withPriority(3).hashCode());
    assertThat(one).isNotEqualTo(one.withRunAt(NOON.plusSeconds(1)));
    assertThat(one).isNotEqualTo(JobOptions.after(Duration.ZERO).withPriority(2));
    assertThat(JobOptions.after(Duration.ofSeconds(1)))
        .isEqualTo(JobOptions.after(Duration.ofSeconds(1)))
        .isNotEqualTo(JobOptions.after(Duration.ofSeconds(2)));
    assertThat(one).isNotEqualTo("JobOptions[runAt=2030-01-01T12:00:00Z, priority=2]");
  }

  @Test
  void aKeyedJobCarriesItsOptionsAndRefusesNone() {
    assertThat(new KeyedJob("k", "{}").options()).isSameAs(JobOptions.DEFAULT);
    JobOptions later = JobOptions.after(Duration.ofHours(1));
    assertThat(new KeyedJob("k", "{}", later).options()).isSameAs(later);
    assertThatThrownBy(() -> new KeyedJob("k", "{}", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("options must not be null; use JobOptions.DEFAULT");
  }

  @Test
  void cancelResultsRefuseMissingParts() {
    CancelResult.Cancelled cancelled =
        new CancelResult.Cancelled(7, JobState.RUNNING, Epoch.of(4), false);
    assertThat(cancelled.jobId()).isEqualTo(7);
    assertThat(new CancelResult.AlreadyEnded(8, JobState.COMPLETED).jobId()).isEqualTo(8);
    assertThat(new CancelResult.NotFound(9).jobId()).isEqualTo(9);
    assertThatThrownBy(() -> new CancelResult.Cancelled(7, null, Epoch.of(4), false))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("was");
    assertThatThrownBy(() -> new CancelResult.Cancelled(7, JobState.PENDING, null, false))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("fence");
    assertThatThrownBy(() -> new CancelResult.AlreadyEnded(8, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("state");
  }

  @Test
  void aCancelledRefusalSaysSoWithItsReasonAndNamesNoNewerEpoch() {
    FencedOffException withReason =
        new FencedOffException(new FencedOutcome.Cancelled("5", Epoch.of(2), "withdrawn"));
    FencedOffException without =
        new FencedOffException(new FencedOutcome.Cancelled("5", Epoch.of(2), null));

    assertThat(withReason).hasMessageEndingWith(": the job was cancelled (withdrawn)");
    assertThat(without).hasMessageEndingWith(": the job was cancelled");
    assertThat(withReason.currentEpoch()).isEmpty();
    assertThatThrownBy(() -> new FencedOutcome.Cancelled(null, Epoch.of(2), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> new FencedOutcome.Cancelled("5", null, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("epoch");
  }

  /** The calls that reached the abstract methods of {@link #queue}, by name. */
  private final List<String> calls = new ArrayList<>();

  /**
   * A queue whose default methods run as the interface has them and whose abstract methods record
   * their call and answer as a backend would: {@code enqueueAll} with ids from 1.
   */
  private FencedQueue queue() {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
          }
          if (method.getName().equals("toString")) {
            return "a queue without controls";
          }
          calls.add(method.getName() + args.length);
          if (method.getName().equals("enqueueAll")) {
            return List.of(1L, 2L);
          }
          throw new AssertionError("unexpected call of " + method);
        };
    return (FencedQueue)
        Proxy.newProxyInstance(
            FencedQueue.class.getClassLoader(), new Class<?>[] {FencedQueue.class}, handler);
  }

  @Test
  void oneJobWithOptionsIsABatchOfOne() {
    FencedQueue queue = queue();

    assertThat(queue.enqueue("q", "{}", JobOptions.DEFAULT)).isEqualTo(1L);
    assertThat(queue.enqueueAll("q", List.of("{}", "{}"), JobOptions.DEFAULT))
        .containsExactly(1L, 2L);
    assertThat(calls).containsExactly("enqueueAll3", "enqueueAll3");
  }

  @Test
  void cancelWithoutAReasonIsCancelWithANullOne() {
    List<String> reasons = new ArrayList<>();
    FencedQueue queue =
        (FencedQueue)
            Proxy.newProxyInstance(
                FencedQueue.class.getClassLoader(),
                new Class<?>[] {FencedQueue.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("cancel") && args.length == 2) {
                    reasons.add(args[0] + ":" + args[1]);
                    return new CancelResult.NotFound((long) args[0]);
                  }
                  return InvocationHandler.invokeDefault(proxy, method, args);
                });

    assertThat(queue.cancel(3)).isEqualTo(new CancelResult.NotFound(3));
    assertThat(reasons).containsExactly("3:null");
  }

  @Test
  void noLimitIsTheStartAndARunningLimitIsKeptWithinItsBounds() {
    assertThat(QueueLimits.NONE.isNone()).isTrue();
    assertThat(QueueLimits.NONE.runningLimit()).isEmpty();
    assertThat(QueueLimits.NONE).hasToString("QueueLimits[none]");

    QueueLimits one = QueueLimits.maxRunning(1);
    assertThat(one.isNone()).isFalse();
    assertThat(one.runningLimit()).hasValue(1);
    assertThat(one).hasToString("QueueLimits[maxRunning=1]");
    assertThat(QueueLimits.maxRunning(QueueLimits.MAX_RUNNING).runningLimit()).hasValue(1_000_000);
    assertThat(one.withMaxRunning(7).runningLimit()).hasValue(7);
    assertThat(one.withoutMaxRunning()).isEqualTo(QueueLimits.NONE);
    assertThat(one.withoutMaxRunning().isNone()).isTrue();

    assertThatThrownBy(() -> QueueLimits.maxRunning(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRunning must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> QueueLimits.maxRunning(1_000_001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1000001");
  }

  @Test
  void groupAndRateLimitsAreKeptAndDescribed() {
    QueueLimits all =
        QueueLimits.maxRunning(3)
            .withRate(100, Duration.ofSeconds(1))
            .withMaxRunningPerGroup(1)
            .withRatePerGroup(10, Duration.ofMinutes(1))
            .withFifoPerGroup();
    assertThat(all.runningLimit()).hasValue(3);
    assertThat(all.rate()).contains(new QueueLimits.Rate(100, Duration.ofSeconds(1)));
    assertThat(all.runningLimitPerGroup()).hasValue(1);
    assertThat(all.ratePerGroup()).contains(new QueueLimits.Rate(10, Duration.ofMinutes(1)));
    assertThat(all.fifoPerGroup()).isTrue();
    assertThat(all.limitsGroups()).isTrue();
    assertThat(all.isNone()).isFalse();
    assertThat(all)
        .hasToString(
            "QueueLimits[maxRunning=3, rate=100/1s, maxRunningPerGroup=1, ratePerGroup=10/1m,"
                + " fifoPerGroup]");

    QueueLimits none =
        all.withoutMaxRunning()
            .withoutRate()
            .withoutMaxRunningPerGroup()
            .withoutRatePerGroup()
            .withoutFifoPerGroup();
    assertThat(none).isEqualTo(QueueLimits.NONE);
    assertThat(none.fifoPerGroup()).isFalse();
    assertThat(none.runningLimitPerGroup()).isEmpty();
    assertThat(none.ratePerGroup()).isEmpty();
    assertThat(none.rate()).isEmpty();
    assertThat(none.isNone()).isTrue();
    assertThat(none.limitsGroups()).isFalse();
    assertThat(QueueLimits.NONE.withRate(1, Duration.ofHours(1)).isNone()).isFalse();
    assertThat(QueueLimits.NONE.withRate(1, Duration.ofHours(1)).limitsGroups()).isFalse();
    assertThat(QueueLimits.NONE.withMaxRunningPerGroup(2).limitsGroups()).isTrue();
    assertThat(QueueLimits.NONE.withRatePerGroup(2, Duration.ofHours(1)).limitsGroups()).isTrue();
    assertThat(QueueLimits.NONE.withFifoPerGroup().limitsGroups()).isTrue();
    assertThat(QueueLimits.NONE.withFifoPerGroup().isNone()).isFalse();
    assertThat(QueueLimits.NONE.withFifoPerGroup()).hasToString("QueueLimits[fifoPerGroup]");

    assertThat(all)
        .isEqualTo(
            QueueLimits.NONE
                .withFifoPerGroup()
                .withRatePerGroup(10, Duration.ofMinutes(1))
                .withMaxRunningPerGroup(1)
                .withRate(100, Duration.ofSeconds(1))
                .withMaxRunning(3))
        .hasSameHashCodeAs(
            QueueLimits.maxRunning(3)
                .withRate(100, Duration.ofSeconds(1))
                .withMaxRunningPerGroup(1)
                .withRatePerGroup(10, Duration.ofMinutes(1))
                .withFifoPerGroup())
        .isNotEqualTo(all.withoutFifoPerGroup())
        .isNotEqualTo(all.withoutRate())
        .isNotEqualTo(all.withoutRatePerGroup())
        .isNotEqualTo(all.withoutMaxRunningPerGroup())
        .isNotEqualTo(all.withMaxRunningPerGroup(2));
  }

  @Test
  void priorityAgingIsAnOrderNotALimit() {
    QueueLimits aged = QueueLimits.NONE.withPriorityAging(Duration.ofSeconds(30));
    assertThat(aged.priorityAging()).contains(Duration.ofSeconds(30));
    assertThat(aged.isNone()).isFalse();
    assertThat(aged.limitsClaims()).isFalse();
    assertThat(aged.limitsGroups()).isFalse();
    assertThat(aged).hasToString("QueueLimits[priorityAging=PT30S]");
    assertThat(aged.withoutPriorityAging()).isEqualTo(QueueLimits.NONE);
    assertThat(QueueLimits.NONE.priorityAging()).isEmpty();
    assertThat(aged)
        .isEqualTo(QueueLimits.NONE.withPriorityAging(Duration.ofSeconds(30)))
        .hasSameHashCodeAs(QueueLimits.NONE.withPriorityAging(Duration.ofSeconds(30)))
        .isNotEqualTo(QueueLimits.NONE.withPriorityAging(Duration.ofSeconds(31)));
    assertThat(QueueLimits.maxRunning(2).limitsClaims()).isTrue();
    assertThat(QueueLimits.NONE.withRate(1, SECOND).limitsClaims()).isTrue();
    assertThat(QueueLimits.NONE.withFifoPerGroup().limitsClaims()).isTrue();
    assertThat(QueueLimits.maxRunning(2).withPriorityAging(SECOND).runningLimit()).hasValue(2);
    assertThat(QueueLimits.NONE.withPriorityAging(QueueLimits.MAX_AGING).priorityAging())
        .contains(Duration.ofDays(1));
    assertThat(QueueLimits.NONE.withPriorityAging(Duration.ofMillis(1)).priorityAging())
        .contains(Duration.ofMillis(1));
    assertThatThrownBy(() -> QueueLimits.NONE.withPriorityAging(Duration.ZERO))
        .hasMessage("aging must be between PT0.001S and PT24H, but was PT0S");
    assertThatThrownBy(() -> QueueLimits.NONE.withPriorityAging(Duration.ofDays(1).plusMillis(1)))
        .hasMessageStartingWith("aging must be between");
    assertThatThrownBy(() -> QueueLimits.NONE.withPriorityAging(Duration.ofNanos(1_000_500)))
        .hasMessage("aging must be a whole number of microseconds, but was PT0.0010005S");
    for (QueueLimits other :
        List.of(
            QueueLimits.maxRunning(1),
            QueueLimits.NONE.withRate(1, SECOND),
            QueueLimits.NONE.withMaxRunningPerGroup(1),
            QueueLimits.NONE.withRatePerGroup(1, SECOND),
            QueueLimits.NONE.withFifoPerGroup())) {
      assertThat(other.withPriorityAging(SECOND).priorityAging()).contains(SECOND);
      assertThat(other.withPriorityAging(SECOND).withoutPriorityAging()).isEqualTo(other);
      assertThat(other.withPriorityAging(SECOND)).isNotEqualTo(other);
    }
    QueueLimits all = aged.withMaxRunning(1).withRate(1, SECOND).withMaxRunningPerGroup(1);
    assertThat(all.withRatePerGroup(1, SECOND).withFifoPerGroup().withoutFifoPerGroup())
        .isEqualTo(all.withRatePerGroup(1, SECOND));
    assertThat(all.withoutMaxRunning().withoutRate().withoutMaxRunningPerGroup()).isEqualTo(aged);
    assertThat(all.withRatePerGroup(1, SECOND).withoutRatePerGroup()).isEqualTo(all);
  }

  @Test
  void ratesAreCheckedAndReadAsTheyAreWritten() {
    assertThat(QueueLimits.Rate.parse("100/1s")).isEqualTo(new QueueLimits.Rate(100, SECOND));
    assertThat(QueueLimits.Rate.parse(" 10/1m ").per()).isEqualTo(Duration.ofMinutes(1));
    assertThat(QueueLimits.Rate.parse("5/PT0.5S").per()).isEqualTo(Duration.ofMillis(500));
    assertThat(QueueLimits.Rate.parse("1/250ms").per()).isEqualTo(Duration.ofMillis(250));
    assertThat(QueueLimits.Rate.parse("1/1500us").per()).isEqualTo(Duration.ofNanos(1_500_000));
    assertThat(QueueLimits.Rate.parse("1/2h").per()).isEqualTo(Duration.ofHours(2));
    assertThat(QueueLimits.Rate.parse("1/1d").per()).isEqualTo(Duration.ofDays(1));
    for (String text : List.of("100/1s", "10/1m", "1/250ms", "1/1500us", "1/2h", "1/1d", "3/90s")) {
      assertThat(QueueLimits.Rate.parse(text)).hasToString(text);
    }
    for (String bad : List.of("", "100", "100/", "/1s", "x/1s", "1/1y", "1/Pxyz", "-1/1s")) {
      assertThatThrownBy(() -> QueueLimits.Rate.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("rate must be written starts/window")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThatThrownBy(() -> QueueLimits.Rate.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
    assertThatThrownBy(() -> QueueLimits.Rate.parse("0/1s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("starts must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> new QueueLimits.Rate(1_000_001, SECOND))
        .hasMessageContaining("1000001");
    assertThat(new QueueLimits.Rate(QueueLimits.MAX_STARTS, QueueLimits.MAX_PER).starts())
        .isEqualTo(1_000_000);
    assertThat(new QueueLimits.Rate(1, QueueLimits.MIN_PER).per()).isEqualTo(Duration.ofMillis(1));
    assertThatThrownBy(() -> new QueueLimits.Rate(1, Duration.ofNanos(999_999)))
        .hasMessageStartingWith("per must be between");
    assertThatThrownBy(() -> new QueueLimits.Rate(1, Duration.ofDays(1).plusMillis(1)))
        .hasMessageStartingWith("per must be between");
    assertThatThrownBy(() -> new QueueLimits.Rate(1, Duration.ofNanos(1_000_500)))
        .hasMessage("per must be a whole number of microseconds, but was PT0.0010005S");
    assertThatThrownBy(() -> QueueLimits.NONE.withMaxRunningPerGroup(0))
        .hasMessage("maxRunningPerGroup must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> QueueLimits.NONE.withMaxRunningPerGroup(1_000_001))
        .hasMessageContaining("1000001");
  }

  @Test
  void aJobsGroupIsKeptCheckedAndDescribed() {
    JobOptions grouped = JobOptions.inGroup("customer-42");
    assertThat(grouped.group()).contains("customer-42");
    assertThat(grouped.isDefault()).isFalse();
    assertThat(grouped).hasToString("JobOptions[priority=0, group='customer-42']");
    assertThat(grouped.withPriority(3).group()).contains("customer-42");
    assertThat(grouped.withDelay(SECOND).group()).contains("customer-42");
    assertThat(grouped.withRunAt(Instant.EPOCH).group()).contains("customer-42");
    assertThat(grouped.withoutGroup()).isEqualTo(JobOptions.DEFAULT);
    assertThat(JobOptions.DEFAULT.group()).isEmpty();
    assertThat(grouped)
        .isEqualTo(JobOptions.DEFAULT.withGroup("customer-42"))
        .hasSameHashCodeAs(JobOptions.inGroup("customer-42"))
        .isNotEqualTo(JobOptions.inGroup("customer-43"));
    assertThat(grouped.hashCode()).isNotEqualTo(JobOptions.inGroup("customer-43").hashCode());
    assertThat(JobOptions.inGroup("x".repeat(200)).group()).hasValue("x".repeat(200));
    assertThatThrownBy(() -> JobOptions.inGroup("x".repeat(201)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("group must be non-blank well-formed text of at most 200");
    assertThatThrownBy(() -> JobOptions.inGroup(" ")).hasMessageStartingWith("group must be");
    assertThatThrownBy(() -> JobOptions.inGroup(null)).hasMessageStartingWith("group must be");
  }

  @Test
  void limitsAreEqualExactlyWhenTheirRunningLimitsAre() {
    assertThat(QueueLimits.maxRunning(5))
        .isEqualTo(QueueLimits.maxRunning(5))
        .hasSameHashCodeAs(QueueLimits.maxRunning(5))
        .isNotEqualTo(QueueLimits.maxRunning(6))
        .isNotEqualTo(QueueLimits.NONE)
        .isNotEqualTo("QueueLimits[maxRunning=5]");
    assertThat(QueueLimits.maxRunning(5).hashCode())
        .isNotEqualTo(QueueLimits.maxRunning(6).hashCode());
  }
}
