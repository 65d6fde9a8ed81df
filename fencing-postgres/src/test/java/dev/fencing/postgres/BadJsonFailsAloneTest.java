package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JSON that jsonb refuses, and text the driver cannot send, broke whole calls: a bad result threw a
 * raw database error out of complete and took its whole completeAll batch down with it, and an
 * error text with a NUL in it made fail() throw. Now the store judges, the bad item fails alone
 * with an IllegalArgumentException naming it, and an error text is stored as well as it can be. On
 * both engines.
 */
@FencingDatabase
class BadJsonFailsAloneTest {

  /** JSON escapes jsonb refuses, a syntax error, a raw NUL, a raw lone surrogate, a long one. */
  private static final List<String> BAD =
      List.of(
          "{\"a\": \"\\u0000\"}",
          "\"\\ud800\"",
          "{",
          "{\"a\": \"x\u0000y\"}",
          "\"\ud800\"",
          "[" + "1, ".repeat(100) + "oops]");

  private TestSchema schema;

  @BeforeEach
  void build(TestSchema schema) {
    this.schema = schema;
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void completeRefusesABadResultByNameAndChangesNothing(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    for (String bad : BAD) {
      long id = queue.enqueue("q", "{}");
      Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
      JobSnapshot before = queue.find(id).orElseThrow();
      assertThatThrownBy(() -> queue.complete(job.lease(), bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("result must be JSON")
          .hasMessageContaining(shown(bad));
      assertThat(queue.find(id).orElseThrow()).isEqualTo(before);
      assertThat(queue.complete(job.lease(), "{\"ok\": true}").repeat()).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void completeAllCommitsTheGoodItemsAndReportsEachBadOneAsInvalid(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    int n = 2 * BAD.size() + 1;
    List<Long> ids = queue.enqueueAll("q", Collections.nCopies(n, "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofMinutes(5), n);
    List<FencedQueue.Completion> completions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String result = i % 2 == 1 ? BAD.get(i / 2) : "{\"i\": " + i + "}";
      completions.add(new FencedQueue.Completion(jobs.get(i).lease(), result));
    }

    List<CommitOutcome> outcomes = queue.completeAll(completions);

    for (int k = 0; k < n; k++) {
      int i = k;
      JobSnapshot row = queue.find(ids.get(i)).orElseThrow();
      if (i % 2 == 1) {
        String bad = BAD.get(i / 2);
        assertThat(outcomes.get(i))
            .isInstanceOfSatisfying(
                CommitOutcome.Invalid.class,
                invalid -> {
                  assertThat(invalid.key()).isEqualTo(Long.toString(ids.get(i)));
                  assertThat(invalid.epoch()).isEqualTo(Epoch.FIRST);
                  assertThat(invalid.error())
                      .hasMessageStartingWith("completions[" + i + "].result must be JSON")
                      .hasMessageContaining(shown(bad));
                });
        assertThat(row.state()).isEqualTo(JobState.RUNNING);
        assertThat(row.result()).isNull();
      } else {
        assertThat(outcomes.get(i))
            .isEqualTo(new FencedOutcome.Accepted(Long.toString(ids.get(i)), Epoch.FIRST, false));
        assertThat(row.result()).isEqualTo("{\"i\": " + i + "}");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void enqueueRefusesABadPayloadByNameAndWritesNothing(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    for (String bad : BAD) {
      assertThatThrownBy(() -> queue.enqueue("q", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("payload must be JSON")
          .hasMessageContaining(shown(bad));
      assertThatThrownBy(() -> queue.enqueueAll("q", List.of("{}", "[1]", bad, "{}")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("payloads[2] must be JSON")
          .hasMessageContaining(shown(bad));
    }
    assertThat(Rows.jobs(schema.dataSource(), schema.name(), engine, "true")).isZero();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void failStoresAnErrorWithNulAndLoneSurrogatesInsteadOfThrowing(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    assertThat(queue.fail(job.lease(), "boom\u0000 \ud800 \udc00 end \ud83d\ude00", Duration.ZERO))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, false));
    assertThat(queue.find(id).orElseThrow().lastError())
        .isEqualTo("boom\ufffd \ufffd \ufffd end \ud83d\ude00");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void cuttingAnErrorToFourThousandCharactersNeverSplitsASurrogatePair(
      PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    String emoji = "\ud83d\ude00";
    String straddling = "x".repeat(3999) + emoji + "tail";
    String fitting = "y".repeat(3998) + emoji + "tail";
    for (String error : List.of(straddling, fitting)) {
      long id = queue.enqueue("q", "{}");
      Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
      queue.fail(job.lease(), error, Duration.ofHours(1));
      String kept = queue.find(id).orElseThrow().lastError();
      assertThat(kept).isNotNull();
      assertThat(error).startsWith(kept);
      assertThat(kept.length()).isLessThanOrEqualTo(4000);
      assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - 1))).isFalse();
    }
  }

  /** The value as the messages show it: quoted, cut at 120 characters. */
  private static String shown(String value) {
    return "'" + (value.length() > 120 ? value.substring(0, 120) + "..." : value) + "'";
  }

  /** The queue under test, which installs the schema for {@code engine}. */
  private FencedQueue queue(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .engine(engine)
        .build()
        .queue();
  }
}
