package dev.fencing;

import dev.fencing.internal.Validate;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A kind of job: the queue its jobs go to, the class of their payload and the class of their
 * result. Declared once and shared by producers and workers, so both agree on what the JSON in the
 * store means:
 *
 * <pre>{@code
 * record SendEmail(String to) {}
 * record Sent(Instant at) {}
 * static final JobType<SendEmail, Sent> SEND = JobType.of("emails", SendEmail.class, Sent.class);
 * }</pre>
 *
 * <p>A {@link JobCodec} turns values into JSON and back; the {@code encode...} and {@code
 * decode...} methods here apply it to this type's classes. A payload or result type of {@link Void}
 * means "none": its value is {@code null}, stored as JSON {@code null} without asking the codec,
 * and whatever JSON the store holds for it reads as {@code null}. A payload or result type of
 * {@link String} is JSON text as it is, whatever the codec: the form for "I already have JSON"
 * ({@link #raw}). A class stands for the whole type, so a generic type ({@code List<SendEmail>}) is
 * best wrapped in a record.
 *
 * <p>Immutable; equal when queue and both classes are.
 *
 * @param <P> the payload's type
 * @param <R> the result's type
 * @since 0.1
 */
public final class JobType<P, R> {

  private final String queue;
  private final Class<P> payloadType;
  private final Class<R> resultType;

  private JobType(String queue, Class<P> payloadType, Class<R> resultType) {
    this.queue = Validate.identifier("queue", queue);
    this.payloadType = checked("payload", payloadType);
    this.resultType = checked("result", resultType);
  }

  /**
   * The jobs of {@code queue}, with payloads of class {@code payload} and results of class {@code
   * result}; {@code Void.class} for none.
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain lower-case identifier ({@code
   *     [a-z_][a-z0-9_]{0,62}}), or a class is null or primitive ({@code int.class}: use {@code
   *     Integer.class}, and {@code Void.class} for none)
   */
  public static <P, R> JobType<P, R> of(String queue, Class<P> payload, Class<R> result) {
    return new JobType<>(queue, payload, result);
  }

  /**
   * The jobs of {@code queue} with payloads and results as JSON text, for {@link
   * JobCodec#rawJson()}: what an application that already has its JSON enqueues and handles.
   *
   * @throws IllegalArgumentException as {@link #of}
   */
  public static JobType<String, String> raw(String queue) {
    return of(queue, String.class, String.class);
  }

  private static <T> Class<T> checked(String parameter, @Nullable Class<T> type) {
    if (type == null || type.isPrimitive()) {
      throw new IllegalArgumentException(
          parameter
              + " must be a class (Void.class for none, Integer.class for int), but was "
              + type);
    }
    return type;
  }

  /** The queue the jobs go to. */
  public String queue() {
    return queue;
  }

  /** The class of the payloads; {@code Void.class} if the jobs have none. */
  public Class<P> payloadType() {
    return payloadType;
  }

  /** The class of the results; {@code Void.class} if the jobs have none. */
  public Class<R> resultType() {
    return resultType;
  }

  /**
   * Returns {@code payload} as JSON with {@code codec}: JSON {@code null} if the payload type is
   * {@link Void}.
   *
   * @throws JobCodecException if the codec cannot encode it
   * @throws NullPointerException if {@code payload} is null and the payload type is not {@code
   *     Void}, or {@code codec} is null
   */
  public String encodePayload(JobCodec codec, @Nullable P payload) {
    return encode(codec, payloadType, payload, "payload");
  }

  /**
   * Returns the payload that {@code json} describes, decoded with {@code codec}: {@code null} if
   * the payload type is {@link Void}.
   *
   * @throws JobCodecException if the codec cannot decode it as the payload type
   * @throws NullPointerException if an argument is null
   */
  public @Nullable P decodePayload(JobCodec codec, String json) {
    return decode(codec, payloadType, json);
  }

  /**
   * Returns {@code result} as JSON with {@code codec}: JSON {@code null} if the result type is
   * {@link Void}.
   *
   * @throws JobCodecException if the codec cannot encode it
   * @throws NullPointerException if {@code result} is null and the result type is not {@code Void},
   *     or {@code codec} is null
   */
  public String encodeResult(JobCodec codec, @Nullable R result) {
    return encode(codec, resultType, result, "result");
  }

  /**
   * Returns the result that {@code json} describes, decoded with {@code codec}: {@code null} if the
   * result type is {@link Void}.
   *
   * @throws JobCodecException if the codec cannot decode it as the result type
   * @throws NullPointerException if an argument is null
   */
  public @Nullable R decodeResult(JobCodec codec, String json) {
    return decode(codec, resultType, json);
  }

  private String encode(JobCodec codec, Class<?> type, @Nullable Object value, String what) {
    Objects.requireNonNull(codec, "codec");
    if (type == Void.class) {
      return "null";
    }
    if (value == null) {
      throw new NullPointerException(
          what + " must not be null for " + this + "; only a Void " + what + " is null");
    }
    return type == String.class ? (String) value : codec.encode(value);
  }

  private static <T> @Nullable T decode(JobCodec codec, Class<T> type, String json) {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(json, "json");
    if (type == String.class) {
      return type.cast(json);
    }
    return type == Void.class ? null : codec.decode(json, type);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobType<?, ?> other
        && queue.equals(other.queue)
        && payloadType.equals(other.payloadType)
        && resultType.equals(other.resultType);
  }

  @Override
  public int hashCode() {
    return Objects.hash(queue, payloadType, resultType);
  }

  /** "JobType[emails: SendEmail -> Sent]", with the classes' simple names. */
  @Override
  public String toString() {
    return "JobType["
        + queue
        + ": "
        + payloadType.getSimpleName()
        + " -> "
        + resultType.getSimpleName()
        + "]";
  }
}
