package dev.fencing.testkit.fault;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * The verdict of a fault test that judges a run after the fact: named checks, in the order given,
 * each with the violations found. A check passes when it has none. A fault test reports every check
 * (with its first violations) rather than stopping at the first failure, so that one run shows
 * everything that went wrong.
 *
 * <pre>{@code
 * CheckList checks = new CheckList(List.of(ONE_TOKEN, NO_STALE));
 * checks.add(ONE_TOKEN, "job 7 epoch 3: claimed by w0 and by w2");
 * System.out.println(checks.summary(10));
 * checks.violations().forEach((check, found) -> softly.assertThat(found).as(check).isEmpty());
 * }</pre>
 *
 * @since 0.1
 */
public final class CheckList {

  private final SequencedMap<String, List<String>> violations = new LinkedHashMap<>();

  /**
   * Starts a verdict with {@code checks}, none violated yet.
   *
   * @throws IllegalArgumentException if {@code checks} is empty or names a check twice
   */
  public CheckList(List<String> checks) {
    if (checks.isEmpty()) {
      throw new IllegalArgumentException("checks must name at least one check");
    }
    for (String check : checks) {
      if (violations.putIfAbsent(check, new ArrayList<>()) != null) {
        throw new IllegalArgumentException("checks names \"" + check + "\" twice");
      }
    }
  }

  /**
   * Records that {@code check} was violated, as {@code violation} describes.
   *
   * @throws IllegalArgumentException if {@code check} is not one of this list's
   */
  public void add(String check, String violation) {
    List<String> found = violations.get(check);
    if (found == null) {
      throw new IllegalArgumentException(
          "check \"" + check + "\" is not one of " + violations.keySet());
    }
    found.add(violation);
  }

  /** Every check by name, in the order given, with its violations (all of them). */
  public SequencedMap<String, List<String>> violations() {
    return Collections.unmodifiableSequencedMap(violations);
  }

  /** The violations of {@code check}, empty when it passed. */
  public List<String> violations(String check) {
    List<String> found = violations.get(check);
    if (found == null) {
      throw new IllegalArgumentException(
          "check \"" + check + "\" is not one of " + violations.keySet());
    }
    return Collections.unmodifiableList(found);
  }

  /** Whether every check passed. */
  public boolean passed() {
    return violations.values().stream().allMatch(List::isEmpty);
  }

  /**
   * One line per check, {@code PASS} or {@code FAIL} with the count of violations and the first
   * {@code examples} of them, one per line below it.
   */
  public String summary(int examples) {
    StringBuilder out = new StringBuilder();
    violations.forEach(
        (check, found) -> {
          out.append(found.isEmpty() ? "  PASS  " : "  FAIL  ").append(check);
          if (!found.isEmpty()) {
            out.append(" (").append(found.size()).append(" violations)");
            for (String v : found.subList(0, Math.min(examples, found.size()))) {
              out.append("\n          ").append(v);
            }
          }
          out.append('\n');
        });
    return out.toString();
  }
}
