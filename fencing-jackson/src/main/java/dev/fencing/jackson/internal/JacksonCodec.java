package dev.fencing.jackson.internal;

import dev.fencing.JobCodec;
import dev.fencing.JobCodecException;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The codec of {@code JacksonJobCodec}: JSON with one Jackson 3 mapper. Public, with a public
 * constructor, only because {@link java.util.ServiceLoader} makes the codec that {@link
 * JobCodec#discover()} returns with it; this package is not exported.
 */
public final class JacksonCodec implements JobCodec {

  /**
   * The mapper of {@code JacksonJobCodec.create()}. Each setting is named even where it is Jackson
   * 3's default, so that how payloads look in the store does not move with Jackson's defaults.
   */
  private static final JsonMapper DEFAULT =
      JsonMapper.builder()
          .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final JsonMapper mapper;

  /** The codec on the default mapper, {@code JacksonJobCodec.create()}. */
  public JacksonCodec() {
    this(DEFAULT);
  }

  /** The codec on {@code mapper}. */
  public JacksonCodec(JsonMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public String encode(Object value) {
    Objects.requireNonNull(value, "value");
    try {
      return mapper.writeValueAsString(value);
    } catch (JacksonException e) {
      throw JobCodecException.encoding(value.getClass(), e);
    }
  }

  @Override
  public <T> T decode(String json, Class<T> type) {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(type, "type");
    T value;
    try {
      value = mapper.readValue(json, type);
    } catch (JacksonException e) {
      throw JobCodecException.decoding(type, e);
    }
    if (value == null) {
      throw new JobCodecException(
          type, "cannot decode JSON as a " + type.getName() + ": the JSON is null");
    }
    return value;
  }

  @Override
  public String toString() {
    return mapper == DEFAULT ? "JacksonJobCodec.create()" : "JacksonJobCodec.of(" + mapper + ")";
  }
}
