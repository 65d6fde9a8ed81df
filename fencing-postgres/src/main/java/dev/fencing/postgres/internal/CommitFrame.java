package dev.fencing.postgres.internal;

import dev.fencing.CommitOutcome;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.StoreUnavailableException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * What the commits of both engines share: the frame of a batched commit, which finds the results
 * and payloads {@code jsonb} refuses and commits the others, and how an error names them.
 */
public final class CommitFrame {

  /** The longest error a failed job keeps; a longer one is cut. */
  public static final int MAX_ERROR_LENGTH = 4000;

  /** How a batch names its i-th completion's values in an error. */
  public static final IntFunction<String> BATCH_NAMES = i -> "completions[" + i + "].";

  private CommitFrame() {}

  /**
   * The frame of a batched commit, for either engine: checks what can be checked before sending,
   * writes the rest with {@code write} (positions in {@code completions} to their outcomes), and
   * when the store refuses a value (a data exception), finds which results and payloads {@code
   * jsonb} refuses, reports each as {@link CommitOutcome.Invalid}, and writes the others.
   *
   * @param names the prefix that names the i-th completion's values in an error: {@link
   *     #BATCH_NAMES} for a batch, none for a single commit
   */
  public static List<CommitOutcome> completeAll(
      List<Completion> completions,
      IntFunction<String> names,
      JsonProbe probe,
      Function<List<Integer>, Map<Integer, CommitOutcome>> write) {
    Objects.requireNonNull(completions, "completions");
    int n = completions.size();
    CommitOutcome[] outcomes = new CommitOutcome[n];
    List<Integer> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Completion completion = Objects.requireNonNull(completions.get(i), "completions[" + i + "]");
      try {
        Text.requireSendable(names.apply(i) + "result", completion.result());
        OutboxWrites.requireSendable(names.apply(i) + "messages", completion.messages());
        items.add(i);
      } catch (IllegalArgumentException e) {
        outcomes[i] = invalid(completion.lease(), e);
      }
    }
    while (!items.isEmpty()) {
      try {
        write.apply(items).forEach((i, outcome) -> outcomes[i] = outcome);
        break;
      } catch (StoreUnavailableException e) {
        if (Text.dataException(e) == null) {
          throw e;
        }
        // The rare path: find the results and payloads jsonb refuses, and commit the others.
        List<String> values = new ArrayList<>();
        List<Integer> itemOf = new ArrayList<>();
        List<Integer> positionOf = new ArrayList<>();
        for (int i : items) {
          List<String> own = jsonValues(completions.get(i).result(), completions.get(i).messages());
          for (int k = 0; k < own.size(); k++) {
            values.add(own.get(k));
            itemOf.add(i);
            positionOf.add(k);
          }
        }
        Map<Integer, SQLException> refused = probe.refused(values, false);
        if (refused.isEmpty()) {
          throw e;
        }
        for (Map.Entry<Integer, SQLException> bad : refused.entrySet()) {
          int i = itemOf.get(bad.getKey());
          if (outcomes[i] == null) {
            String parameter = jsonName(names.apply(i), positionOf.get(bad.getKey()));
            outcomes[i] =
                invalid(
                    completions.get(i).lease(),
                    Text.invalidJson(parameter, values.get(bad.getKey()), bad.getValue()));
          }
        }
        items = items.stream().filter(i -> outcomes[i] == null).toList();
      }
    }
    return List.of(outcomes);
  }

  /** The values {@code jsonb} must take: the result, then each message's payload. */
  public static List<String> jsonValues(String result, List<OutboxMessage> messages) {
    List<String> values = new ArrayList<>(messages.size() + 1);
    values.add(result);
    messages.forEach(m -> values.add(m.payload()));
    return values;
  }

  /** The name of the k-th of {@link #jsonValues}: the result, then the messages' payloads. */
  public static String jsonName(String prefix, int k) {
    return k == 0 ? prefix + "result" : prefix + "messages[" + (k - 1) + "].payload";
  }

  private static CommitOutcome.Invalid invalid(Lease lease, IllegalArgumentException error) {
    return new CommitOutcome.Invalid(lease.key(), lease.epoch(), error);
  }
}
