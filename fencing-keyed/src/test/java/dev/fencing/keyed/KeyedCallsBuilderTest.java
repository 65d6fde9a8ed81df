package dev.fencing.keyed;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KeyedCallsBuilderTest {

  private static final URI LOCAL = URI.create("http://127.0.0.1:9");

  @Test
  void aBaseUriMustBeHttpWithAHost() {
    for (String bad : new String[] {"ftp://h/x", "http:///x", "http://h/x?q=1", "http://u@h/"}) {
      assertThatThrownBy(() -> KeyedHttp.builder(URI.create(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("baseUri must be an http(s)://host[:port][/path] URL")
          .hasMessageEndingWith("but was '" + bad + "'");
    }
    assertThatThrownBy(() -> KeyedHttp.builder(null)).hasMessageEndingWith("but was null");
  }

  @Test
  void eachSettingIsCheckedWhenSetAndNamed() {
    KeyedHttp.Builder builder = KeyedHttp.builder(LOCAL);
    assertThatThrownBy(() -> builder.namespace("a b")).hasMessageStartingWith("namespace must be");
    assertThatThrownBy(() -> builder.namespace(null)).hasMessageStartingWith("namespace must be");
    assertThatThrownBy(() -> builder.callTimeout(Duration.ZERO))
        .hasMessage("callTimeout must be between PT0.001S and PT10M, but was PT0S");
    assertThatThrownBy(() -> builder.connectTimeout(Duration.ofHours(1)))
        .hasMessageStartingWith("connectTimeout must be between");
    assertThatThrownBy(() -> builder.maxAttempts(0))
        .hasMessage("maxAttempts must be between 1 and 100, but was 0");
    assertThatThrownBy(() -> builder.retryDelay(Duration.ofMillis(-1)))
        .hasMessageStartingWith("retryDelay must be between PT0S");
    assertThatThrownBy(() -> builder.lookupPath("/operations"))
        .hasMessage("lookupPath must hold {key} where the key goes, but was '/operations'");
    assertThatThrownBy(() -> builder.lookupPath("ops/{key}"))
        .hasMessageStartingWith("lookupPath must start with /");
    assertThatThrownBy(() -> builder.headers("Bad Header", "Fencing-Epoch"))
        .hasMessageStartingWith("keyHeader must be an HTTP header name");
    assertThatThrownBy(() -> builder.headers("Idempotency-Key", "Host"))
        .hasMessageStartingWith("epochHeader must not be a header the HTTP client sets itself");
    assertThatThrownBy(() -> builder.headers("X-Key", "x-key"))
        .hasMessage("epochHeader must differ from keyHeader, but both were 'X-Key'");
  }

  @Test
  void aPathMustStartWithASlash() {
    try (KeyedCalls calls = KeyedHttp.builder(LOCAL).build()) {
      CallId id = new CallId("42", "charge");
      assertThatThrownBy(() -> calls.post(id, Epoch.FIRST, "charges", "{}"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("path must start with / and be at most 2000 characters, but was 'charges'");
      assertThatThrownBy(() -> calls.post(id, Epoch.FIRST, "/a b", "{}"))
          .hasMessage("path must be a valid URI path, but was '/a b'");
    }
  }
}
