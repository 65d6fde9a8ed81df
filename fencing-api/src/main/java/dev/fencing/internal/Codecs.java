package dev.fencing.internal;

import dev.fencing.JobCodec;
import dev.fencing.JobCodecException;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The codecs of the API: {@link JobCodec#rawJson()} and the choice of {@link JobCodec#discover()}.
 * Internal: exported only to the fencing modules, not an API.
 */
public final class Codecs {

  /** {@link JobCodec#rawJson()}: JSON text as a {@code String}, judged by the store. */
  public static final JobCodec RAW_JSON = new RawJson();

  private Codecs() {}

  /** The one codec provided through {@link ServiceLoader}, else {@link #RAW_JSON}. */
  public static JobCodec discover() {
    return choose(
        ServiceLoader.load(JobCodec.class).stream().map(ServiceLoader.Provider::get).toList());
  }

  /**
   * The one codec of {@code provided}, or {@link #RAW_JSON} if there is none.
   *
   * @throws IllegalStateException naming their classes, if there are several
   */
  public static JobCodec choose(List<JobCodec> provided) {
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
    return provided.isEmpty() ? RAW_JSON : provided.get(0);
  }

  private static final class RawJson implements JobCodec {

    @Override
    public String encode(Object value) {
      Objects.requireNonNull(value, "value");
      return Validate.json("value", onlyStrings(value.getClass()).cast(value));
    }

    @Override
    public <T> T decode(String json, Class<T> type) {
      Objects.requireNonNull(json, "json");
      Objects.requireNonNull(type, "type");
      onlyStrings(type);
      return type.cast(json);
    }

    /** Returns {@code String.class} if {@code type} is it. */
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

    @Override
    public String toString() {
      return "JobCodec.rawJson()";
    }
  }
}
