package dev.fencing.keyed;

import static dev.fencing.internal.Validate.quote;

import dev.fencing.Lease;
import dev.fencing.Ownership;
import dev.fencing.internal.Validate;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What identifies one call to a non-cooperating service: the job (or resource) it is made for, and
 * the step of that job's work. Every epoch of the same job makes the same call under the same id,
 * so it gets the same idempotency key (see {@link KeyedCalls#keyOf}); the epoch is not part of it.
 *
 * @param job the job id in decimal or the resource's name: 1 to 200 characters, not blank, no
 *     control characters, no unpaired surrogate
 * @param step the step of the job's work this call is (such as {@code charge}), same rules
 * @since 0.1
 */
public record CallId(String job, String step) {

  /** The longest job and step, in characters. */
  public static final int MAX_LENGTH = 200;

  /**
   * @throws IllegalArgumentException naming {@code job} or {@code step} and the value, if it is
   *     null, blank, longer than 200 characters or holds a control character
   */
  public CallId {
    job = name("job", job);
    step = name("step", step);
  }

  /**
   * Returns the id of step {@code step} of the job {@code lease} holds: its job part is the job id
   * in decimal ({@link Lease#key()}), the same for every claim of the job.
   *
   * @throws IllegalArgumentException naming {@code step} if it is not valid
   * @throws NullPointerException if {@code lease} is null
   */
  public static CallId of(Lease lease, String step) {
    return new CallId(Objects.requireNonNull(lease, "lease").key(), step);
  }

  /**
   * Returns the id of step {@code step} for the resource {@code ownership} holds: its job part is
   * the resource's name, the same for every acquisition of it.
   *
   * @throws IllegalArgumentException naming {@code step} if it is not valid
   * @throws NullPointerException if {@code ownership} is null
   */
  public static CallId of(Ownership ownership, String step) {
    return new CallId(Objects.requireNonNull(ownership, "ownership").key(), step);
  }

  private static String name(String parameter, @Nullable String value) {
    if (value == null
        || value.isBlank()
        || value.length() > MAX_LENGTH
        || !Validate.wellFormed(value, true)) {
      throw new IllegalArgumentException(
          parameter
              + " must be 1 to "
              + MAX_LENGTH
              + " characters, not blank, without control characters, but was "
              + quote(value));
    }
    return value;
  }
}
