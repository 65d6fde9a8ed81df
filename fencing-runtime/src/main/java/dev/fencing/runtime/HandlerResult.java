package dev.fencing.runtime;

import dev.fencing.OutboxMessage;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link OutboxHandler} returns: the job's result, and the outbox messages the runtime
 * commits with it, in the same transaction as the compare-and-set on owner and epoch. A commit that
 * is refused writes none of them; a relay sends the others afterwards, at the epoch of the commit
 * (see {@link FencedWorkers.Builder#relay(dev.fencing.FencedOutbox, String,
 * dev.fencing.FencedOutbox.Sender)}).
 *
 * @param result the job's result, JSON
 * @param messages at most 100, none null; copied
 * @since 0.1
 */
public record HandlerResult(String result, List<OutboxMessage> messages) {

  /**
   * @throws IllegalArgumentException if {@code result} is null, or {@code messages} is null, holds
   *     more than 100 messages or a null one, naming it
   */
  public HandlerResult {
    Validate.json("result", result);
    messages = List.copyOf(Batches.messages("messages", messages));
  }

  /**
   * Returns {@code result} with {@code messages}, in the order given.
   *
   * @throws IllegalArgumentException as the constructor does
   */
  public static HandlerResult of(String result, OutboxMessage @Nullable ... messages) {
    return new HandlerResult(result, messages == null ? null : Arrays.asList(messages));
  }
}
