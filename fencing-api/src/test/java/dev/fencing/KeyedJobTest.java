package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyedJobTest {

  @Test
  void keysAreCheckedByName() {
    assertThat(new KeyedJob("k", "{}").key()).isEqualTo("k");
    assertThat(new KeyedJob("x".repeat(200), "{}").key()).hasSize(200);
    assertThatThrownBy(() -> new KeyedJob(null, "{}"))
        .hasMessage(
            "key must be non-blank well-formed text of at most 200 characters, but was null");
    assertThatThrownBy(() -> new KeyedJob(" ", "{}")).hasMessageEndingWith("but was ' '");
    assertThatThrownBy(() -> new KeyedJob("x".repeat(201), "{}"))
        .hasMessageEndingWith("(201 characters)");
    assertThatThrownBy(() -> new KeyedJob("a\0", "{}")).hasMessageEndingWith("but was 'a\\0'");
    assertThatThrownBy(() -> new KeyedJob("k", null))
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void batchesAreCheckedByIndex() {
    List<KeyedJob> ok = List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{}"));
    assertThat(Batches.keyedJobs(ok)).isSameAs(ok);
    assertThat(Batches.keyedJobs(List.of())).isEmpty();
    assertThatThrownBy(() -> Batches.keyedJobs(null))
        .hasMessage("jobs must be a list, but was null");
    assertThatThrownBy(() -> Batches.keyedJobs(Arrays.asList(ok.get(0), null)))
        .hasMessage("jobs[1] must be a job, but was null");
    assertThatThrownBy(() -> Batches.keyedJobs(List.of(ok.get(0), ok.get(1), ok.get(0))))
        .hasMessage("jobs[2].key repeats jobs[0].key 'a': a key names one job");
    assertThat(Batches.keyedJobs(Collections.nCopies(1, ok.get(0)))).hasSize(1);
    List<KeyedJob> tooMany = new java.util.ArrayList<>();
    for (int i = 0; i <= Validate.MAX_BATCH; i++) {
      tooMany.add(new KeyedJob("k" + i, "{}"));
    }
    assertThatThrownBy(() -> Batches.keyedJobs(tooMany))
        .hasMessage("jobs must hold at most 10000 jobs, but held 10001");
    assertThat(Batches.keyedJobs(tooMany.subList(0, Validate.MAX_BATCH))).hasSize(10_000);
  }

  @Test
  void enqueuedIsChecked() {
    assertThat(new Enqueued(1, "k", true).created()).isTrue();
    assertThatThrownBy(() -> new Enqueued(0, "k", true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Enqueued(1, "", true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
