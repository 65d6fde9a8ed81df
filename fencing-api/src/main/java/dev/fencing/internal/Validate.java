package dev.fencing.internal;

import java.time.Duration;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks every module applies to its parameters, in one place so that every backend refuses the
 * same inputs with the same messages and renders a bad value the same way ({@link #quote}). Each
 * method throws {@link IllegalArgumentException} naming the parameter and the value, or returns the
 * value unchanged. It names no type of the API, which validates through it: the checks of the API's
 * lists are in {@link Batches}. Internal: exported only to the fencing modules, not an API.
 */
public final class Validate {

  /** The longest lease any backend grants: 24 hours. */
  public static final Duration MAX_LEASE = Duration.ofHours(24);

  /** The largest batch a single claim takes. */
  public static final int MAX_BATCH = 10_000;

  /** The longest owner name, in characters. */
  public static final int MAX_OWNER_LENGTH = 200;

  /** The longest receiver key, in characters. */
  public static final int MAX_KEY_LENGTH = 500;

  /** The most outbox messages one commit writes. */
  public static final int MAX_MESSAGES = 100;

  /** The longest resource name, in characters. */
  public static final int MAX_RESOURCE_LENGTH = 200;

  /** The longest idempotency key of a job, in characters. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;

  /** The longest schedule name, in characters. */
  public static final int MAX_SCHEDULE_NAME_LENGTH = 100;

  private static final Pattern SCHEDULE = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  private static final Pattern RESOURCE = Pattern.compile("[A-Za-z0-9._:-]{1,200}");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private Validate() {}

  /**
   * Returns {@code name} if it is a plain lower-case SQL identifier: a letter or underscore, then
   * up to 62 letters, digits or underscores.
   *
   * @param parameter the parameter's name, for the message
   */
  public static String identifier(String parameter, @Nullable String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          parameter
              + " must be a plain identifier ([a-z_][a-z0-9_]{0,62}), but was "
              + quote(name));
    }
    return name;
  }

  /**
   * Returns {@code owner} if it is neither null nor blank, at most 200 characters long, and
   * well-formed text (no NUL, no unpaired surrogate, which a database would change or refuse).
   */
  public static String owner(@Nullable String owner) {
    return text("owner", owner, MAX_OWNER_LENGTH);
  }

  /**
   * Returns {@code key} if it is neither null nor blank, at most 500 characters long, and
   * well-formed text: two keys that a store would turn into the same bytes must not be two keys.
   */
  public static String key(@Nullable String key) {
    return text("key", key, MAX_KEY_LENGTH);
  }

  /**
   * Returns {@code key} if it can name a job for good: neither null nor blank, at most {@value
   * #MAX_IDEMPOTENCY_KEY_LENGTH} characters, well-formed text (no NUL, no lone surrogate).
   *
   * @param parameter the parameter's name, for the message
   */
  public static String idempotencyKey(String parameter, @Nullable String key) {
    return text(parameter, key, MAX_IDEMPOTENCY_KEY_LENGTH);
  }

  /** The longest group name of a job ({@code JobOptions.withGroup}). */
  public static final int MAX_GROUP_LENGTH = 200;

  /**
   * Returns {@code group} if it can name a job's group: neither null nor blank, at most {@value
   * #MAX_GROUP_LENGTH} characters, well-formed text.
   */
  public static String group(@Nullable String group) {
    return text("group", group, MAX_GROUP_LENGTH);
  }

  /**
   * Returns {@code value} if it is neither null nor blank, at most {@code maxLength} characters,
   * and well-formed text; a value too long is shown with its length.
   */
  private static String text(String parameter, @Nullable String value, int maxLength) {
    if (value == null || value.isBlank() || value.length() > maxLength || !wellFormed(value)) {
      throw new IllegalArgumentException(
          parameter
              + " must be non-blank well-formed text of at most "
              + maxLength
              + " characters, but was "
              + (value != null && value.length() > maxLength
                  ? quote(value) + " (" + value.length() + " characters)"
                  : quote(value)));
    }
    return value;
  }

  /**
   * Returns {@code resource} if it is a resource name every coordination backend stores as it is: 1
   * to 200 ASCII letters, digits, {@code . _ : -}; not only digits (those are job keys, see {@link
   * Ownership#key()}); not {@code .} or {@code ..}.
   */
  public static String resource(@Nullable String resource) {
    if (resource == null
        || !RESOURCE.matcher(resource).matches()
        || resource.chars().allMatch(c -> c >= '0' && c <= '9')
        || resource.equals(".")
        || resource.equals("..")) {
      throw new IllegalArgumentException(
          "resource must be 1 to "
              + MAX_RESOURCE_LENGTH
              + " of A-Z a-z 0-9 . _ : -, not only digits (a job's key) and not . or .., but was "
              + quote(resource));
    }
    return resource;
  }

  /**
   * Returns {@code name} if it is 1 to {@value #MAX_SCHEDULE_NAME_LENGTH} of A-Z a-z 0-9 . _ -: a
   * schedule's name, which its jobs' idempotency keys contain.
   */
  public static String scheduleName(@Nullable String name) {
    if (name == null || !SCHEDULE.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "name must be 1 to "
              + MAX_SCHEDULE_NAME_LENGTH
              + " of A-Z a-z 0-9 . _ -, but was "
              + quote(name));
    }
    return name;
  }

  /** Whether {@code text} has no NUL and no unpaired surrogate. */
  private static boolean wellFormed(String text) {
    return wellFormed(text, false);
  }

  /**
   * Whether {@code text} has no unpaired surrogate and no NUL, nor with {@code noControl} any other
   * control character: text that can be stored, logged and compared as it is.
   */
  public static boolean wellFormed(String text, boolean noControl) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0 || (noControl && Character.isISOControl(c))) {
        return false;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** Returns {@code jobId} if it is at least 1. */
  public static long jobId(long jobId) {
    if (jobId < 1) {
      throw new IllegalArgumentException("jobId must be at least 1, but was " + jobId);
    }
    return jobId;
  }

  /** The longest reason a cancel keeps; a longer one is cut. */
  public static final int MAX_CANCEL_REASON = 4_000;

  /**
   * Returns the last error of a job cancelled with {@code reason} (checked: null or not blank):
   * {@code "cancelled: <reason>"}, or {@code "cancelled"} without a reason.
   */
  public static String cancelled(@Nullable String reason) {
    if (reason == null) {
      return "cancelled";
    }
    if (reason.isBlank()) {
      throw new IllegalArgumentException(
          "reason must be null or not blank, but was " + quote(reason));
    }
    return "cancelled: " + reason;
  }

  /** Returns {@code leaseLength} if it is between 1 ms and 24 h. */
  public static Duration leaseLength(@Nullable Duration leaseLength) {
    return between("leaseLength", leaseLength, Duration.ofMillis(1), MAX_LEASE);
  }

  /** Returns {@code delay} if it is between zero and 24 h. */
  public static Duration delay(String parameter, @Nullable Duration delay) {
    return between(parameter, delay, Duration.ZERO, MAX_LEASE);
  }

  /** The shortest time finished jobs are kept: a worker may still read a job it just finished. */
  public static final Duration MIN_KEEP_FINISHED = Duration.ofMinutes(1);

  /** The longest time finished jobs can be kept before removal: 3650 days. */
  public static final Duration MAX_KEEP_FINISHED = Duration.ofDays(3650);

  /**
   * Returns {@code age} if it is between {@link #MIN_KEEP_FINISHED} and {@link #MAX_KEEP_FINISHED}:
   * how long a finished job is kept before it may be removed.
   *
   * @param parameter the parameter's name, for the message
   */
  public static Duration keepFinished(String parameter, @Nullable Duration age) {
    if (age == null
        || age.compareTo(MIN_KEEP_FINISHED) < 0
        || age.compareTo(MAX_KEEP_FINISHED) > 0) {
      throw new IllegalArgumentException(
          parameter + " must be between 1 min and 3650 days, but was " + age);
    }
    return age;
  }

  /**
   * Checks the parameters of a claim: the queue's name, the owner, the lease's length and the batch
   * size, each as its own check does.
   *
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public static void claim(
      String queue, @Nullable String owner, @Nullable Duration leaseLength, int batchSize) {
    identifier("queue", queue);
    owner(owner);
    leaseLength(leaseLength);
    batchSize(batchSize);
  }

  /** Returns {@code batchSize} if it is between 1 and 10,000. */
  public static int batchSize(int batchSize) {
    return between("batchSize", batchSize, 1, MAX_BATCH);
  }

  /** Returns {@code attempts} if it is between 1 and 1,000. */
  public static int maxAttempts(int attempts) {
    return between("maxAttempts", attempts, 1, 1_000);
  }

  /**
   * Returns {@code json} if it is not null. Whether it is JSON is for the store to judge (a
   * PostgreSQL backend lets {@code jsonb} decide, so the check and the store never disagree); a
   * store that refuses it raises {@link IllegalArgumentException} naming the parameter.
   *
   * @param parameter the parameter's name, for the message
   */
  public static String json(String parameter, @Nullable String json) {
    if (json == null) {
      throw new IllegalArgumentException(parameter + " must be JSON, but was null");
    }
    return json;
  }

  /** Returns {@code value} if it lies in {@code [min, max]}; null is out of range. */
  public static Duration between(
      String parameter, @Nullable Duration value, Duration min, Duration max) {
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          parameter + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }

  /** Returns {@code value} if it lies in {@code [min, max]}. */
  public static int between(String parameter, int value, int min, int max) {
    return Math.toIntExact(between(parameter, (long) value, min, max));
  }

  /** Returns {@code value} if it lies in {@code [min, max]}. */
  public static long between(String parameter, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          parameter + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }

  /** Returns {@code value} if it lies in {@code [min, max]}; NaN is out of range. */
  public static double between(String parameter, double value, long min, long max) {
    if (!(value >= min && value <= max)) {
      throw new IllegalArgumentException(
          parameter + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }

  /** Returns {@code value} if it lies in {@code (min, max)}, both ends excluded; NaN is out. */
  public static double above(String parameter, double value, long min, long max) {
    if (!(value > min && value < max)) {
      throw new IllegalArgumentException(
          parameter + " must be above " + min + " and below " + max + ", but was " + value);
    }
    return value;
  }

  /**
   * How every module shows a bad text value in a message: in single quotes, cut at 120 characters,
   * NUL shown as {@code \0}; {@code null} unquoted.
   */
  public static String quote(@Nullable String value) {
    if (value == null) {
      return "null";
    }
    String shown = value.length() > 120 ? value.substring(0, 120) + "..." : value;
    return "'" + shown.replace("\0", "\\0") + "'";
  }
}
