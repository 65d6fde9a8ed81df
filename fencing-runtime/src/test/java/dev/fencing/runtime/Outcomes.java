package dev.fencing.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Collects a runtime's outcomes and waits for them. */
final class Outcomes implements Consumer<WorkOutcome> {

  private final List<WorkOutcome> all = new CopyOnWriteArrayList<>();

  @Override
  public void accept(WorkOutcome outcome) {
    all.add(outcome);
  }

  List<WorkOutcome> all() {
    return List.copyOf(all);
  }

  <T extends WorkOutcome> List<T> of(Class<T> type) {
    return all.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /**
   * Waits until at least {@code count} outcomes of {@code type} came, or fails after {@code
   * timeout}.
   */
  <T extends WorkOutcome> List<T> await(Class<T> type, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (of(type).size() < count) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "waited " + timeout + " for " + count + " " + type.getSimpleName() + ", got: " + all);
      }
      Thread.sleep(10);
    }
    return of(type);
  }
}
