package dev.fencing.internal;

import dev.fencing.JobCodecException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The work of {@code JobCodec.rawJson()} and the choice of {@code JobCodec.discover()}, naming no
 * codec type, so that the interface and its implementations are no circle. Internal: exported only
 * to the fencing modules, not an API.
 */
public final class Codecs {

  private Codecs() {}

  /**
   * Returns {@code value} if it is a {@code String}, as raw JSON: whether it is JSON is the store's
   * to judge ({@link Validate#json}).
   *
   * @throws JobCodecException if it is of another class
   * @throws NullPointerException if it is null
   */
  public static String encodeRaw(Object value) {
    Objects.requireNonNull(value, "value");
    return Validate.json("value", onlyStrings(value.getClass()).cast(value));
  }

  /**
   * Returns {@code json} if {@code type} is {@code String}.
   *
   * @throws JobCodecException if {@code type} is another class
   * @throws NullPointerException if an argument is null
   */
  public static <T> T decodeRaw(String json, Class<T> type) {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(type, "type");
    onlyStrings(type);
    return type.cast(json);
  }

  private static Class<String> onlyStrings(Class<?> type) {
    if (type != String.class) {
      throw new JobCodecException(
          type,
          "JobCodec.rawJson() carries JSON strings only, not "
              + type.getName()
              + ": add fencing-jackson, or give a JobCodec");
    }
    return String.class;
  }

  /**
   * The one codec of {@code provided}, or empty if there is none.
   *
   * @throws IllegalStateException naming their classes, if there are several
   */
  public static <T> Optional<T> onlyOne(List<T> provided) {
    if (provided.size() > 1) {
      throw new IllegalStateException(
          "JobCodec.discover() found "
              + provided.size()
              + " codecs, "
              + provided.stream()
                  .map(c -> c.getClass().getName())
                  .collect(Collectors.joining(" and "))
              + ": give the one to use instead of discovering it");
    }
    return provided.stream().findFirst();
  }
}
