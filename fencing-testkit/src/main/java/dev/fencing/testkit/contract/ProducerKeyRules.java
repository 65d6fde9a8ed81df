package dev.fencing.testkit.contract;

import static dev.fencing.testkit.contract.QueueContractFixture.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Enqueued;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The idempotency-key half of {@link JobProducerContract}: a key names one job of its queue for as
 * long as the job exists, so enqueueing it again returns that job and writes nothing; a key taken
 * with another payload, or named twice in one call, is refused by index and key with nothing
 * written; options count only when the job is created.
 */
abstract class ProducerKeyRules extends ProducerContractFixture {

  @Test
  void aKeyEnqueuedAgainReturnsItsJobAndWritesNothing() {
    Enqueued first = producer.enqueue(queueName, new KeyedJob("order-42", "{\"n\": 1}"));
    assertThat(first.created()).isTrue();
    assertThat(first.key()).isEqualTo("order-42");
    Enqueued again = producer.enqueue(queueName, new KeyedJob("order-42", "{\"n\": 1}"));
    assertThat(again).isEqualTo(new Enqueued(first.id(), "order-42", false));
    assertThat(producer.find(first.id()).orElseThrow().payload()).isEqualTo("{\"n\": 1}");
    assertThat(queue.depth(queueName).pending()).as("one job").isEqualTo(1);
    assertThat(claimNext().id()).isEqualTo(first.id());
    assertThat(claim()).isEmpty();
  }

  @Test
  void payloadsAreComparedAsJsonValues() {
    Enqueued first = producer.enqueue(queueName, new KeyedJob("k", "{\"a\": 1, \"b\": [1, 2]}"));
    Enqueued again = producer.enqueue(queueName, new KeyedJob("k", "{\"b\":[1,2],  \"a\":1}"));
    assertThat(again).isEqualTo(new Enqueued(first.id(), "k", false));
  }

  @Test
  void aBatchReturnsOneOutcomePerJobInItsOrderAndWritesOnlyTheNewKeys() {
    Enqueued taken = producer.enqueue(queueName, new KeyedJob("b", "{}"));
    List<Enqueued> batch =
        producer.enqueueKeyed(
            queueName,
            List.of(new KeyedJob("c", "{}"), new KeyedJob("b", "{}"), new KeyedJob("a", "{}")));
    assertThat(batch).extracting(Enqueued::key).containsExactly("c", "b", "a");
    assertThat(batch).extracting(Enqueued::created).containsExactly(true, false, true);
    assertThat(batch.get(1).id()).isEqualTo(taken.id());
    assertThat(batch).extracting(Enqueued::id).doesNotHaveDuplicates();
    assertThat(queue.depth(queueName).pending()).isEqualTo(3);
    assertThat(producer.enqueueKeyed(queueName, List.of())).isEmpty();
  }

  @Test
  void aKeyTakenWithAnotherPayloadIsRefusedByIndexAndKeyAndNothingIsWritten() {
    Enqueued first = producer.enqueue(queueName, new KeyedJob("order-7", "{\"to\": \"ada\"}"));
    assertRefused(
        () ->
            producer.enqueueKeyed(
                queueName,
                List.of(
                    new KeyedJob("new-one", "{}"), new KeyedJob("order-7", "{\"to\": \"bo\"}"))),
        "jobs[1]",
        "order-7");
    assertRefused(
        () -> producer.enqueue(queueName, new KeyedJob("order-7", "[]")), "jobs[0]", "order-7");
    assertThat(queue.depth(queueName).pending())
        .as("the batch's new key was not written")
        .isEqualTo(1);
    assertThat(producer.find(first.id()).orElseThrow().payload()).isEqualTo("{\"to\": \"ada\"}");
  }

  @Test
  void aKeyNamedTwiceInOneCallIsRefusedAndNothingIsWritten() {
    assertRefused(
        () ->
            producer.enqueueKeyed(
                queueName,
                List.of(
                    new KeyedJob("a", "{}"),
                    new KeyedJob("twice", "{}"),
                    new KeyedJob("twice", "{}"))),
        "jobs[2]",
        "twice");
    assertNothingWritten();
  }

  @Test
  void keysAreComparedExactlyAndBelongToTheirQueue() {
    List<Enqueued> three =
        producer.enqueueKeyed(
            queueName,
            List.of(
                new KeyedJob("key", "{}"), new KeyedJob("Key", "{}"), new KeyedJob("key ", "{}")));
    assertThat(three).allMatch(Enqueued::created);
    assertThat(three).extracting(Enqueued::id).doesNotHaveDuplicates();
    Enqueued elsewhere = producer.enqueue(queueName + "_other", new KeyedJob("key", "{}"));
    assertThat(elsewhere.created()).isTrue();
    assertThat(elsewhere.id()).isNotIn(three.stream().map(Enqueued::id).toList());
    assertThat(producer.find(elsewhere.id()).orElseThrow().queue()).isEqualTo(queueName + "_other");
  }

  @Test
  void aFinishedJobKeepsItsKey() {
    Enqueued done = producer.enqueue(queueName, new KeyedJob("done", "{}"));
    queue.complete(claimNext().lease(), "{}");
    Enqueued cancelled = producer.enqueue(queueName, new KeyedJob("cancelled", "{}"));
    producer.cancel(cancelled.id());
    assertThat(producer.enqueue(queueName, new KeyedJob("done", "{}")))
        .isEqualTo(new Enqueued(done.id(), "done", false));
    assertThat(producer.enqueue(queueName, new KeyedJob("cancelled", "{}")))
        .isEqualTo(new Enqueued(cancelled.id(), "cancelled", false));
    assertThat(claim()).as("neither runs again").isEmpty();
    assertThat(producer.find(done.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
  }

  @Test
  void optionsCountOnlyWhenTheJobIsCreated() {
    long plain = producer.enqueue(queueName, "{}");
    Enqueued later =
        producer.enqueue(queueName, new KeyedJob("later", "{}", JobOptions.after(HOUR)));
    Enqueued urgent =
        producer.enqueue(queueName, new KeyedJob("urgent", "{}", JobOptions.ofPriority(7)));
    JobSnapshot waiting = producer.find(later.id()).orElseThrow();

    assertThat(producer.enqueue(queueName, new KeyedJob("later", "{}")))
        .isEqualTo(new Enqueued(later.id(), "later", false));
    assertThat(producer.enqueue(queueName, new KeyedJob("urgent", "{}", JobOptions.ofPriority(-7))))
        .isEqualTo(new Enqueued(urgent.id(), "urgent", false));

    assertThat(claimOneByOne(2)).containsExactly(urgent.id(), plain);
    assertThat(claim()).as("the keyed job an hour away").isEmpty();
    assertThat(producer.find(later.id()).orElseThrow()).isEqualTo(waiting);
  }

  @Test
  void producersRacingOnTheSameKeysMakeOneJobPerKey() throws Exception {
    List<KeyedJob> keys =
        IntStream.range(0, 50).mapToObj(i -> new KeyedJob("k" + i, "{\"i\": " + i + "}")).toList();
    List<KeyedJob> reversed = new ArrayList<>(keys);
    Collections.reverse(reversed);
    List<Enqueued> mine;
    List<Enqueued> theirs;
    try (ExecutorService two = Executors.newFixedThreadPool(2)) {
      Future<List<Enqueued>> one = two.submit(() -> producer.enqueueKeyed(queueName, keys));
      Future<List<Enqueued>> other = two.submit(() -> producer.enqueueKeyed(queueName, reversed));
      mine = one.get();
      theirs = new ArrayList<>(other.get());
    }
    Collections.reverse(theirs);

    for (int i = 0; i < keys.size(); i++) {
      assertThat(theirs.get(i).id()).as("key %s", keys.get(i).key()).isEqualTo(mine.get(i).id());
      assertThat(mine.get(i).created() ^ theirs.get(i).created())
          .as("key %s was created by exactly one producer", keys.get(i).key())
          .isTrue();
    }
    assertThat(queue.depth(queueName).pending()).isEqualTo(keys.size());
    List<Job> claimed = queue.claimBatch(queueName, "w1", LONG, 100);
    assertThat(claimed).hasSize(keys.size());
  }
}
