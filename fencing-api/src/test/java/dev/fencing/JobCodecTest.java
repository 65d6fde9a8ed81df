package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Codecs;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobCodecTest {

  record SendEmail(String to) {}

  private final JobCodec raw = JobCodec.rawJson();

  @Test
  void rawJsonCarriesJsonTextAsItIs() {
    String json = "{\"to\": \"ada@example.com\"}";
    assertThat(raw.encode(json)).isSameAs(json);
    assertThat(raw.decode(json, String.class)).isSameAs(json);
    assertThat(raw.encode("null")).isEqualTo("null");
    assertThat(raw).hasToString("JobCodec.rawJson()");
  }

  @Test
  void rawJsonRefusesAnyOtherTypeSayingWhatToDo() {
    String message =
        "JobCodec.rawJson() carries JSON strings only, not dev.fencing.JobCodecTest$SendEmail:"
            + " add fencing-jackson, or give a JobCodec";
    assertThatThrownBy(() -> raw.encode(new SendEmail("ada@example.com")))
        .isInstanceOfSatisfying(
            JobCodecException.class, e -> assertThat(e.type()).isEqualTo(SendEmail.class))
        .hasMessage(message);
    assertThatThrownBy(() -> raw.decode("{}", SendEmail.class))
        .isInstanceOf(JobCodecException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> raw.decode("{}", Object.class))
        .isInstanceOf(JobCodecException.class)
        .hasMessageContaining("not java.lang.Object");
  }

  @Test
  void rawJsonRefusesNull() {
    assertThatThrownBy(() -> raw.encode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value");
    assertThatThrownBy(() -> raw.decode(null, String.class))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("json");
    assertThatThrownBy(() -> raw.decode("{}", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("type");
  }

  @Test
  void discoverFallsBackToRawJsonWhenNoCodecIsProvided() {
    JobCodec discovered = JobCodec.discover();

    assertThat(discovered).hasToString("JobCodec.rawJson()");
    assertThat(discovered.encode("[1]")).isEqualTo("[1]");
    assertThatThrownBy(() -> discovered.decode("[1]", List.class))
        .isInstanceOf(JobCodecException.class);
  }

  @Test
  void discoverTakesTheOneCodecProvidedAndRefusesTwoNamingBoth() {
    JobCodec one = new Upper();
    assertThat(Codecs.onlyOne(List.of(one))).containsSame(one);
    assertThat(Codecs.onlyOne(List.of())).isEmpty();
    assertThatThrownBy(() -> Codecs.onlyOne(List.of(one, new JobTypeTest.Refusing())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "JobCodec.discover() found 2 codecs, dev.fencing.JobCodecTest$Upper and"
                + " dev.fencing.JobTypeTest$Refusing: give the one to use instead of"
                + " discovering it");
  }

  @Test
  void failuresNameTheTypeAndKeepTheCodecsOwnMessageAndCause() {
    IllegalStateException cause = new IllegalStateException("Unexpected character 'x'");

    JobCodecException decoding = JobCodecException.decoding(SendEmail.class, cause);
    assertThat(decoding)
        .isInstanceOf(FencingException.class)
        .hasMessage(
            "cannot decode JSON as a dev.fencing.JobCodecTest$SendEmail: Unexpected character 'x'")
        .hasCause(cause);
    assertThat(decoding.type()).isEqualTo(SendEmail.class);

    JobCodecException encoding = JobCodecException.encoding(SendEmail.class, cause);
    assertThat(encoding)
        .hasMessage(
            "cannot encode a dev.fencing.JobCodecTest$SendEmail as JSON: Unexpected character 'x'")
        .hasCause(cause);
    assertThat(new JobCodecException(String.class, "bad")).hasMessage("bad").hasNoCause();
  }

  @Test
  void failuresNeedTheirParts() {
    RuntimeException cause = new RuntimeException("x");
    assertThatThrownBy(() -> new JobCodecException(null, "m", cause)).hasMessage("type");
    assertThatThrownBy(() -> new JobCodecException(String.class, null, cause))
        .hasMessage("message");
    assertThatThrownBy(() -> new JobCodecException(String.class, "m", null)).hasMessage("cause");
    assertThatThrownBy(() -> new JobCodecException(null, "m")).hasMessage("type");
    assertThatThrownBy(() -> new JobCodecException(String.class, null)).hasMessage("message");
  }

  /** A codec of strings that upper-cases them, to tell it from the others. */
  static final class Upper implements JobCodec {
    @Override
    public String encode(Object value) {
      return "\"" + value.toString().toUpperCase(java.util.Locale.ROOT) + "\"";
    }

    @Override
    public <T> T decode(String json, Class<T> type) {
      return type.cast(json.toUpperCase(java.util.Locale.ROOT));
    }
  }
}
