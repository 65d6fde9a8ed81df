package dev.fencing.runtime;

import dev.fencing.internal.Validate;
import java.time.Duration;

/** A runtime's settings, checked once when it starts. */
record Settings(
    String queueName,
    String owner,
    int concurrency,
    int prefetch,
    int batchSize,
    Duration leaseLength,
    Duration heartbeatInterval,
    Duration minLeaseLeft,
    Duration retryDelay,
    Duration idleWait,
    Duration maxCommitDelay,
    Duration drainTimeout,
    Duration fallbackPoll,
    boolean virtualThreads) {

  Settings {
    Validate.identifier("queue", queueName);
    Validate.owner(owner);
    Validate.between("concurrency", concurrency, 1, 10_000);
    Validate.between("prefetch", prefetch, 0, Validate.MAX_BATCH);
    Validate.batchSize(batchSize);
    Validate.leaseLength(leaseLength);
    Validate.delay("heartbeatInterval", heartbeatInterval);
    if (heartbeatInterval.isZero() || heartbeatInterval.compareTo(leaseLength) >= 0) {
      throw new IllegalArgumentException(
          "heartbeatInterval must be more than zero and less than leaseLength ("
              + leaseLength
              + "), but was "
              + heartbeatInterval);
    }
    Validate.delay("minLeaseLeft", minLeaseLeft);
    if (minLeaseLeft.compareTo(leaseLength) >= 0) {
      throw new IllegalArgumentException(
          "minLeaseLeft must be less than leaseLength ("
              + leaseLength
              + "), but was "
              + minLeaseLeft);
    }
    Validate.delay("retryDelay", retryDelay);
    Validate.delay("idleWait", idleWait);
    Validate.delay("maxCommitDelay", maxCommitDelay);
    Validate.delay("drainTimeout", drainTimeout);
    Validate.delay("fallbackPoll", fallbackPoll);
  }

  /** How many claims may be in flight at once: running, waiting for a thread, or committing. */
  int capacity() {
    return concurrency + prefetch;
  }
}
