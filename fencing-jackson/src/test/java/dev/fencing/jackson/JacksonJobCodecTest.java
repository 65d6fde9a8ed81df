package dev.fencing.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.JobCodec;
import dev.fencing.JobCodecException;
import dev.fencing.JobType;
import dev.fencing.KeyedJob;
import dev.fencing.jackson.internal.JacksonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

class JacksonJobCodecTest {

  public record Customer(String name, String email) {}

  public record Line(String sku, int quantity) {}

  public record Order(
      String id,
      Instant placed,
      LocalDate due,
      Duration window,
      Customer customer,
      List<Line> lines) {}

  public record SendEmail(String to) {}

  /** A value whose accessor fails, so Jackson cannot write it. */
  public record Unwritable(String secret) {
    @Override
    public String secret() {
      throw new IllegalStateException("sealed");
    }
  }

  private static final Order ORDER =
      new Order(
          "o-1",
          Instant.parse("2026-12-07T10:15:30.123456789Z"),
          LocalDate.parse("2026-12-24"),
          Duration.ofMinutes(5),
          new Customer("Ada", "ada@example.com"),
          List.of(new Line("tea", 2), new Line("cake", 1)));

  private static final String ORDER_CLASS = Order.class.getName();

  private final JobCodec codec = JacksonJobCodec.create();

  @Test
  void recordsWithTimesAndListsComeBackEqual() {
    String json = codec.encode(ORDER);

    assertThat(codec.decode(json, Order.class)).isEqualTo(ORDER);
  }

  @Test
  void timesAreIso8601StringsAndTheJsonIsWhatTheStoreTakes() {
    String json = codec.encode(ORDER);

    assertThat(json)
        .contains("\"placed\":\"2026-12-07T10:15:30.123456789Z\"")
        .contains("\"due\":\"2026-12-24\"")
        .contains("\"window\":\"PT5M\"")
        .contains("\"lines\":[{\"sku\":\"tea\",\"quantity\":2},{\"sku\":\"cake\",\"quantity\":1}]");
    assertThat(new KeyedJob("order-o-1", json).payload()).isEqualTo(json);
    assertThat(JsonMapper.shared().readTree(json).isObject()).isTrue();
  }

  @Test
  void propertiesTheClassDoesNotKnowAreIgnored() {
    assertThat(codec.decode("{\"to\":\"ada@example.com\",\"added\":\"later\"}", SendEmail.class))
        .isEqualTo(new SendEmail("ada@example.com"));
  }

  @Test
  void malformedJsonFailsNamingTheTypeWithJacksonsMessage() {
    assertThatThrownBy(() -> codec.decode("{\"id\": ", Order.class))
        .isInstanceOfSatisfying(
            JobCodecException.class,
            e -> {
              assertThat(e.type()).isEqualTo(Order.class);
              assertThat(e.getCause()).isInstanceOf(JacksonException.class);
              assertThat(e.getMessage())
                  .isEqualTo("cannot decode JSON as a " + ORDER_CLASS + ": " + jacksonsMessage(e));
            });
    assertThatThrownBy(() -> codec.decode("", Order.class))
        .isInstanceOf(JobCodecException.class)
        .hasMessageStartingWith("cannot decode JSON as a " + ORDER_CLASS + ": ");
  }

  @Test
  void aValueOfTheWrongTypeFailsNamingTheTypeWithJacksonsMessage() {
    assertThatThrownBy(() -> codec.decode("{\"placed\": \"yesterday\"}", Order.class))
        .isInstanceOfSatisfying(
            JobCodecException.class,
            e ->
                assertThat(e.getMessage())
                    .startsWith("cannot decode JSON as a " + ORDER_CLASS + ": ")
                    .endsWith(jacksonsMessage(e))
                    .contains("java.time.Instant")
                    .contains("yesterday"));
    assertThatThrownBy(() -> codec.decode("[1, 2]", SendEmail.class))
        .isInstanceOf(JobCodecException.class)
        .hasCauseInstanceOf(JacksonException.class);
  }

  @Test
  void anythingAfterTheValueIsRefused() {
    assertThatThrownBy(() -> codec.decode("{\"to\":\"ada@example.com\"} {}", SendEmail.class))
        .isInstanceOf(JobCodecException.class)
        .hasCauseInstanceOf(JacksonException.class);
  }

  @Test
  void jsonNullIsNoValue() {
    assertThatThrownBy(() -> codec.decode("null", SendEmail.class))
        .isInstanceOf(JobCodecException.class)
        .hasMessage("cannot decode JSON as a " + SendEmail.class.getName() + ": the JSON is null")
        .hasNoCause();
  }

  @Test
  void aValueJacksonCannotWriteFailsNamingItsClass() {
    assertThatThrownBy(() -> codec.encode(new Unwritable("x")))
        .isInstanceOfSatisfying(
            JobCodecException.class,
            e -> {
              assertThat(e.type()).isEqualTo(Unwritable.class);
              assertThat(e.getCause()).isInstanceOf(JacksonException.class);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "cannot encode a "
                          + Unwritable.class.getName()
                          + " as JSON: "
                          + jacksonsMessage(e))
                  .contains("sealed");
            });
  }

  @Test
  void nullIsRefused() {
    assertThatThrownBy(() -> codec.encode(null)).hasMessage("value");
    assertThatThrownBy(() -> codec.decode(null, SendEmail.class)).hasMessage("json");
    assertThatThrownBy(() -> codec.decode("{}", null)).hasMessage("type");
    assertThatThrownBy(() -> JacksonJobCodec.of(null)).hasMessage("mapper");
  }

  @Test
  void anApplicationsMapperDecidesHowValuesLook() {
    JsonMapper mapper =
        JsonMapper.builder().enable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    JobCodec own = JacksonJobCodec.of(mapper);

    String json = own.encode(ORDER);
    assertThat(json).contains("\"placed\":1796638530.123456789");
    assertThat(own.decode(json, Order.class)).isEqualTo(ORDER);
    assertThat(own).hasToString("JacksonJobCodec.of(" + mapper + ")");
  }

  @Test
  void aJobTypeEncodesItsPayloadAndResultWithIt() {
    JobType<SendEmail, Instant> send = JobType.of("emails", SendEmail.class, Instant.class);

    String payload = send.encodePayload(codec, new SendEmail("ada@example.com"));
    assertThat(payload).isEqualTo("{\"to\":\"ada@example.com\"}");
    assertThat(send.decodePayload(codec, payload)).isEqualTo(new SendEmail("ada@example.com"));
    assertThat(send.encodeResult(codec, Instant.EPOCH)).isEqualTo("\"1970-01-01T00:00:00Z\"");
  }

  @Test
  void discoverFindsItOnThePath() throws IOException {
    JobCodec discovered = JobCodec.discover();

    assertThat(discovered).isInstanceOf(JacksonCodec.class).hasToString("JacksonJobCodec.create()");
    assertThat(discovered.encode(ORDER)).isEqualTo(codec.encode(ORDER));
    // the tests run on the module path (module-info's provides); the class path reads this file
    try (InputStream in =
        JacksonCodec.class.getResourceAsStream("/META-INF/services/dev.fencing.JobCodec")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip())
          .isEqualTo(JacksonCodec.class.getName());
    }
  }

  /** Jackson's own message of the failure {@code e} wraps. */
  private static String jacksonsMessage(JobCodecException e) {
    return e.getCause().getMessage();
  }
}
