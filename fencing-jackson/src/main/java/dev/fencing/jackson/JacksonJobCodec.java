package dev.fencing.jackson;

import dev.fencing.JobCodec;
import dev.fencing.jackson.internal.JacksonCodec;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link JobCodec}s on Jackson 3. With this module on the class or module path, {@link
 * JobCodec#discover()} returns one made by {@link #create()}; {@link #of} uses the application's
 * own mapper instead (a Spring Boot application's {@code JsonMapper}, with its modules and
 * settings).
 *
 * <pre>{@code
 * JobCodec codec = JacksonJobCodec.create();
 * String json = codec.encode(new SendEmail("ada@example.com", Instant.now()));
 * SendEmail back = codec.decode(json, SendEmail.class);
 * }</pre>
 *
 * <p>On the module path, Jackson reads and makes an application's records only if their package is
 * open to it: {@code opens com.example.jobs to tools.jackson.databind;} in the application's {@code
 * module-info} (an {@code exports} does for public records only). Without it, encoding fails with
 * Jackson's "access to public member failed" or "class is not public".
 *
 * <p>A failure to encode or decode is a {@link dev.fencing.JobCodecException} naming the type, with
 * Jackson's message and Jackson's exception as its cause. Decoding JSON {@code null} fails too: a
 * codec never returns null. The codecs are safe to use from many threads at once.
 *
 * @since 0.1
 */
public final class JacksonJobCodec {

  private JacksonJobCodec() {}

  /**
   * A codec on a mapper set for job payloads out of the box: records and beans; {@code java.time}
   * values (an {@code Instant}, a {@code LocalDate}, a {@code Duration}...) written as ISO-8601
   * strings ({@code "2026-12-07T10:15:30Z"}, {@code "PT5M"}), never as numbers; properties the
   * class does not know ignored on reading, so that an older worker reads a newer producer's
   * payload; anything after the JSON value refused. The mapper is shared by every codec this
   * returns.
   */
  public static JobCodec create() {
    return new JacksonCodec();
  }

  /**
   * A codec on {@code mapper}, as the application configured it: its settings decide how values
   * look in the store (with Jackson 3's defaults, dates are ISO-8601 strings, and an unknown
   * property fails decoding).
   *
   * @throws NullPointerException if {@code mapper} is null
   */
  public static JobCodec of(JsonMapper mapper) {
    return new JacksonCodec(Objects.requireNonNull(mapper, "mapper"));
  }
}
