package dev.fencing;

import dev.fencing.internal.Codecs;
import java.util.ServiceLoader;

/**
 * Turns a job's payload and result into the JSON text a {@link FencedQueue} stores, and back. A
 * {@link JobType} names the classes; a codec does the work. {@link #rawJson()} carries JSON text
 * that the application already has; {@code fencing-jackson} provides one for records, beans and
 * {@code java.time}, which {@link #discover()} finds on the class or module path.
 *
 * <p>An implementation must be safe to use from many threads at once: one codec serves every
 * producer and worker of an application. It refuses {@code null} (a {@link JobType} whose type is
 * {@link Void} stores JSON {@code null} without asking the codec), and never returns {@code null}.
 *
 * @since 0.1
 */
public interface JobCodec {

  /**
   * Returns {@code value} as JSON text, for the store to keep.
   *
   * @throws JobCodecException naming the value's class, if it cannot be encoded
   * @throws NullPointerException if {@code value} is null
   */
  String encode(Object value);

  /**
   * Returns the value of {@code type} that {@code json} describes.
   *
   * @throws JobCodecException naming {@code type}, if {@code json} is not JSON, is JSON {@code
   *     null}, or does not describe a {@code type}
   * @throws NullPointerException if an argument is null
   */
  <T> T decode(String json, Class<T> type);

  /**
   * The codec of JSON text held as a {@code String}: {@code encode} returns the string itself and
   * {@code decode(json, String.class)} returns {@code json}. Whether the text is JSON is left to
   * the store, which refuses what it cannot keep (with {@link IllegalArgumentException}). Any other
   * type than {@code String} fails with {@link JobCodecException}: add {@code fencing-jackson}, or
   * give a codec that knows it.
   */
  static JobCodec rawJson() {
    return new JobCodec() {
      @Override
      public String encode(Object value) {
        return Codecs.encodeRaw(value);
      }

      @Override
      public <T> T decode(String json, Class<T> type) {
        return Codecs.decodeRaw(json, type);
      }

      @Override
      public String toString() {
        return "JobCodec.rawJson()";
      }
    };
  }

  /**
   * The one codec provided through {@link ServiceLoader} ({@code fencing-jackson} provides one), or
   * {@link #rawJson()} if none is. Looks again on every call; call it once where the application is
   * wired.
   *
   * @throws IllegalStateException naming their classes, if more than one codec is provided: give
   *     the one to use instead of discovering it
   * @throws java.util.ServiceConfigurationError if a provider cannot be loaded
   */
  static JobCodec discover() {
    return Codecs.onlyOne(
            ServiceLoader.load(JobCodec.class).stream().map(ServiceLoader.Provider::get).toList())
        .orElseGet(JobCodec::rawJson);
  }
}
