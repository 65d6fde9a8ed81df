package dev.fencing.testkit.memory;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.internal.Batches;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The outbox of an {@link InMemoryQueue}: the messages its commits wrote, oldest first, and the
 * relay that sends them. A message being sent is marked, so two relays never send it at once; the
 * sender is called without the queue's lock, so it may call the queue.
 */
final class MemoryOutbox implements FencedOutbox {

  /** One message a commit wrote; guarded by the queue's lock. */
  private static final class Message {
    final Envelope envelope;
    boolean sending;
    @Nullable FencedOutcome outcome;

    Message(Envelope envelope) {
      this.envelope = envelope;
    }
  }

  private final StoreLock lock;
  private final TreeMap<Long, Message> messages = new TreeMap<>();
  private long lastId;

  MemoryOutbox(StoreLock lock) {
    this.lock = lock;
  }

  /**
   * Writes the messages of a commit under {@code lease}, their payloads as {@code jsonb} prints
   * them; the caller holds the lock.
   */
  void write(Lease lease, List<OutboxMessage> written) {
    for (int i = 0; i < written.size(); i++) {
      OutboxMessage m = written.get(i);
      messages.put(
          ++lastId,
          new Message(
              new Envelope(
                  lease.jobId(), i, lease.epoch(), m.destination(), m.key(), m.payload())));
    }
  }

  /** Whether job {@code jobId} has a message not yet delivered; the caller holds the lock. */
  boolean owes(long jobId) {
    return messages.values().stream()
        .anyMatch(m -> m.envelope.jobId() == jobId && m.outcome == null);
  }

  /** Removes the delivered messages of job {@code jobId}; the caller holds the lock. */
  int removeDelivered(long jobId) {
    int removed = 0;
    for (Iterator<Message> it = messages.values().iterator(); it.hasNext(); ) {
      Message m = it.next();
      if (m.envelope.jobId() == jobId && m.outcome != null) {
        it.remove();
        removed++;
      }
    }
    return removed;
  }

  @Override
  public List<Relayed> relay(String destination, Sender sender, int max) {
    return Batches.relay(destination, sender, max, () -> relayOne(destination, sender));
  }

  /** Sends the oldest message no relay is sending, if any, and records its outcome. */
  private Optional<Relayed> relayOne(String destination, Sender sender) {
    Message next = lock.locked(() -> take(destination));
    if (next == null) {
      return Optional.empty();
    }
    FencedOutcome outcome = null;
    try {
      outcome =
          Objects.requireNonNull(sender.send(next.envelope), "the sender returned no outcome");
    } finally {
      FencedOutcome said = outcome;
      lock.run(
          () -> {
            next.sending = false;
            next.outcome = said;
          });
    }
    return Optional.of(new Relayed(next.envelope, outcome));
  }

  /** The oldest undelivered message for {@code destination} that no relay is sending, marked. */
  private @Nullable Message take(String destination) {
    for (Message m : messages.values()) {
      if (m.outcome == null && !m.sending && m.envelope.destination().equals(destination)) {
        m.sending = true;
        return m;
      }
    }
    return null;
  }
}
