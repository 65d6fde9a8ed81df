package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad builder input is refused by name, before anything connects. */
class EtcdOwnershipBuilderTest {

  private static final String OK = "http://127.0.0.1:2379";

  @Test
  void endpointsMustBeHttpHostPortUrls() {
    refused(() -> EtcdOwnership.builder(), "endpoints", "none");
    refused(() -> EtcdOwnership.builder((String[]) null), "endpoints", "none");
    refused(() -> EtcdOwnership.builder(List.of()), "endpoints", "none");
    refused(() -> EtcdOwnership.builder((List<URI>) null), "endpoints", "null");
    refused(() -> EtcdOwnership.builder("http://[::1"), "endpoints", "'http://[::1'");
    refused(() -> EtcdOwnership.builder(OK, "localhost:2379"), "endpoints", "'localhost:2379'");
    refused(() -> EtcdOwnership.builder("https://a:2379"), "endpoints", "'https://a:2379'");
    refused(() -> EtcdOwnership.builder("http://a"), "endpoints", "'http://a'");
    refused(() -> EtcdOwnership.builder("http://a:1/x"), "endpoints", "'http://a:1/x'");
    refused(() -> EtcdOwnership.builder(OK, null), "endpoints", "null");
  }

  @Test
  void thePrefixIsAnAbsolutePathOfPlainSegments() {
    for (String prefix :
        List.of("", "fencing", "/", "/a/", "//a", "/a//b", "/a/../b", "/..", "/a b")) {
      refused(() -> EtcdOwnership.builder(OK).prefix(prefix), "prefix", "'" + prefix + "'");
    }
    refused(() -> EtcdOwnership.builder(OK).prefix(null), "prefix", "null");
    refused(
        () -> EtcdOwnership.builder(OK).prefix("/" + "a".repeat(200)),
        "prefix",
        "'/" + "a".repeat(119) + "...'");
    EtcdOwnership.builder(OK).prefix("/apps/billing-1/fencing_v2.x");
  }

  @Test
  void timeoutsAreBetweenOneMillisecondAndTenMinutes() {
    refused(() -> EtcdOwnership.builder(OK).callTimeout(Duration.ZERO), "callTimeout", "PT0S");
    refused(() -> EtcdOwnership.builder(OK).callTimeout(null), "callTimeout", "null");
    refused(
        () -> EtcdOwnership.builder(OK).callTimeout(Duration.ofMinutes(11)),
        "callTimeout",
        "PT11M");
    refused(
        () -> EtcdOwnership.builder(OK).connectTimeout(Duration.ofSeconds(-1)),
        "connectTimeout",
        "PT-1S");
    refused(() -> EtcdOwnership.builder(OK).connectTimeout(null), "connectTimeout", "null");
  }

  private static void refused(Executable call, String parameter, String value) {
    assertThatThrownBy(call::execute)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " must")
        .hasMessageEndingWith("but was " + value);
  }
}
