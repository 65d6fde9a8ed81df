package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JobTypeTest {

  record SendEmail(String to) {}

  record Sent(String id) {}

  private static final JobType<SendEmail, Sent> SEND =
      JobType.of("emails", SendEmail.class, Sent.class);

  @Test
  void namesItsQueueAndClasses() {
    assertThat(SEND.queue()).isEqualTo("emails");
    assertThat(SEND.payloadType()).isEqualTo(SendEmail.class);
    assertThat(SEND.resultType()).isEqualTo(Sent.class);
    assertThat(SEND).hasToString("JobType[emails: SendEmail -> Sent]");
    assertThat(JobType.raw("emails")).hasToString("JobType[emails: String -> String]");
    assertThat(JobType.raw("emails").payloadType()).isEqualTo(String.class);
    assertThat(JobType.raw("emails").resultType()).isEqualTo(String.class);
  }

  @Test
  void isEqualWhenQueueAndBothClassesAre() {
    assertThat(JobType.of("emails", SendEmail.class, Sent.class))
        .isEqualTo(SEND)
        .hasSameHashCodeAs(SEND);
    assertThat(JobType.of("emails_2", SendEmail.class, Sent.class)).isNotEqualTo(SEND);
    assertThat(JobType.of("emails", Sent.class, Sent.class)).isNotEqualTo(SEND);
    assertThat(JobType.of("emails", SendEmail.class, Void.class)).isNotEqualTo(SEND);
    assertThat(SEND).isNotEqualTo("emails");
    assertThat(JobType.raw("emails").hashCode()).isNotEqualTo(SEND.hashCode());
  }

  @Test
  void queuesAreNamedAsEverywhereElse() {
    for (String bad : new String[] {"Emails", "", "a-b", "x".repeat(64)}) {
      assertThatThrownBy(() -> JobType.of(bad, SendEmail.class, Sent.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("queue must be a plain identifier")
          .hasMessageEndingWith("but was '" + bad + "'");
    }
    assertThatThrownBy(() -> JobType.raw(null)).hasMessageEndingWith("but was null");
  }

  @Test
  void classesAreNeitherNullNorPrimitive() {
    assertThatThrownBy(() -> JobType.of("emails", null, Sent.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "payload must be a class (Void.class for none, Integer.class for int), but was null");
    assertThatThrownBy(() -> JobType.of("emails", SendEmail.class, int.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "result must be a class (Void.class for none, Integer.class for int), but was int");
    assertThatThrownBy(() -> JobType.of("emails", void.class, Sent.class))
        .hasMessageStartingWith("payload must be a class");
  }

  @Test
  void encodesAndDecodesWithTheCodecForItsClasses() {
    JobType<String, String> raw = JobType.raw("emails");
    JobCodec codec = JobCodec.rawJson();
    assertThat(raw.encodePayload(codec, "{\"to\": 1}")).isEqualTo("{\"to\": 1}");
    assertThat(raw.decodePayload(codec, "{\"to\": 1}")).isEqualTo("{\"to\": 1}");
    assertThat(raw.encodeResult(codec, "true")).isEqualTo("true");
    assertThat(raw.decodeResult(codec, "true")).isEqualTo("true");

    assertThatThrownBy(() -> SEND.encodePayload(codec, new SendEmail("ada@example.com")))
        .isInstanceOf(JobCodecException.class);
    assertThatThrownBy(() -> SEND.decodeResult(codec, "{}"))
        .isInstanceOf(JobCodecException.class)
        .hasMessageContaining("not dev.fencing.JobTypeTest$Sent");
  }

  @Test
  void aStringIsJsonTextAsItIsWhateverTheCodec() {
    JobCodec quoting =
        new JobCodec() {
          @Override
          public String encode(Object value) {
            return "\"" + value + "\"";
          }

          @Override
          public <T> T decode(String json, Class<T> type) {
            String text = json.substring(1, json.length() - 1);
            return type.cast(type == Integer.class ? Integer.valueOf(text) : text);
          }
        };
    JobType<String, String> raw = JobType.raw("emails");
    assertThat(raw.encodePayload(quoting, "{\"to\": 1}")).isEqualTo("{\"to\": 1}");
    assertThat(raw.encodeResult(quoting, "[1]")).isEqualTo("[1]");
    assertThat(raw.decodePayload(quoting, "{\"to\": 1}")).isEqualTo("{\"to\": 1}");
    assertThat(raw.decodeResult(quoting, "[1]")).isEqualTo("[1]");
    JobType<Integer, Integer> numbers = JobType.of("n", Integer.class, Integer.class);
    assertThat(numbers.encodePayload(quoting, 7)).isEqualTo("\"7\"");
    assertThat(numbers.decodeResult(quoting, "\"7\"")).isEqualTo(7);
  }

  @Test
  void aVoidTypeIsJsonNullAndReadsAsNullWhateverIsStored() {
    JobType<Void, Void> none = JobType.of("cleanup", Void.class, Void.class);
    JobCodec refusesAll = new Refusing();
    assertThat(none.encodePayload(refusesAll, null)).isEqualTo("null");
    assertThat(none.encodeResult(refusesAll, null)).isEqualTo("null");
    assertThat(none.decodePayload(refusesAll, "{\"left\": \"over\"}")).isNull();
    assertThat(none.decodeResult(refusesAll, "null")).isNull();
    assertThat(none).hasToString("JobType[cleanup: Void -> Void]");
  }

  @Test
  void onlyAVoidValueIsNull() {
    JobCodec codec = JobCodec.rawJson();
    JobType<String, String> raw = JobType.raw("emails");
    assertThatThrownBy(() -> raw.encodePayload(codec, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(
            "payload must not be null for JobType[emails: String -> String]; only a Void payload"
                + " is null");
    assertThatThrownBy(() -> raw.encodeResult(codec, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageStartingWith("result must not be null");
    assertThatThrownBy(() -> raw.encodeResult(null, "1")).hasMessage("codec");
    assertThatThrownBy(() -> raw.decodeResult(null, "1")).hasMessage("codec");
    assertThatThrownBy(() -> raw.decodePayload(codec, null)).hasMessage("json");
  }

  /** A codec that must not be asked. */
  static final class Refusing implements JobCodec {
    @Override
    public String encode(Object value) {
      throw new AssertionError("encode asked");
    }

    @Override
    public <T> T decode(String json, Class<T> type) {
      throw new AssertionError("decode asked");
    }
  }
}
