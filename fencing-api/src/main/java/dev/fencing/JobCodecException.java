package dev.fencing;

import java.util.Objects;

/**
 * A {@link JobCodec} could not turn a value into JSON, or JSON into a value of the type asked for.
 * The message names the type and says why, in the codec's own words; the codec's own failure is
 * kept as the cause. Nothing was sent to the store.
 *
 * @since 0.1
 */
public final class JobCodecException extends FencingException {

  private static final long serialVersionUID = 1L;

  private final Class<?> type;

  /**
   * @param type the type that was being encoded or decoded
   * @param message why, naming the type
   * @param cause the codec's own failure
   * @throws NullPointerException if any argument is null
   */
  public JobCodecException(Class<?> type, String message, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), Objects.requireNonNull(cause, "cause"));
    this.type = Objects.requireNonNull(type, "type");
  }

  /**
   * @param type the type that was being encoded or decoded
   * @param message why, naming the type
   * @throws NullPointerException if any argument is null
   */
  public JobCodecException(Class<?> type, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.type = Objects.requireNonNull(type, "type");
  }

  /**
   * A value of {@code type} could not be encoded: "cannot encode a com.example.SendEmail as JSON: "
   * and the message of {@code cause}, which is kept.
   *
   * @throws NullPointerException if any argument is null
   */
  public static JobCodecException encoding(Class<?> type, Throwable cause) {
    return new JobCodecException(
        type, "cannot encode a " + type.getName() + " as JSON: " + cause.getMessage(), cause);
  }

  /**
   * JSON could not be decoded as {@code type}: "cannot decode JSON as a com.example.SendEmail: "
   * and the message of {@code cause}, which is kept.
   *
   * @throws NullPointerException if any argument is null
   */
  public static JobCodecException decoding(Class<?> type, Throwable cause) {
    return new JobCodecException(
        type, "cannot decode JSON as a " + type.getName() + ": " + cause.getMessage(), cause);
  }

  /** Returns the type that was being encoded or decoded. */
  public Class<?> type() {
    return type;
  }
}
