package dev.fencing.keyed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.Lease;
import dev.fencing.Ownership;
import java.net.URI;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CallIdTest {

  private static final Instant SOON = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void theKeyIsTheHexSha256OfVersionNamespaceJobAndStepSeparatedByNul() {
    try (KeyedCalls calls = KeyedHttp.builder(URI.create("http://127.0.0.1:9")).build();
        KeyedCalls payments =
            KeyedHttp.builder(URI.create("http://127.0.0.1:9")).namespace("payments").build()) {
      // python3: hashlib.sha256(b'fencing-keyed/v1\x00fencing\x0042\x00charge').hexdigest()
      assertThat(calls.keyOf(new CallId("42", "charge")))
          .isEqualTo("62756b3da6f9d799d243aa948fb8b9e7e0755a274eda1df239f16f846f505394");
      assertThat(payments.keyOf(new CallId("account-7", "refund é")))
          .isEqualTo("59fbd289445adf67da09bbc5ddea6af4e3c7f6d1fb6e517d7596d2d8422bdc2a");
    }
  }

  @Test
  void everyClaimOfAJobGivesTheSameIdAndKey() {
    Lease zombie = new Lease(42, "worker-a", Epoch.FIRST, SOON);
    Lease owner = new Lease(42, "worker-b", Epoch.of(2), SOON);
    try (KeyedCalls calls = KeyedHttp.builder(URI.create("http://127.0.0.1:9")).build()) {
      assertThat(CallId.of(zombie, "charge")).isEqualTo(CallId.of(owner, "charge"));
      assertThat(calls.keyOf(CallId.of(owner, "charge")))
          .isEqualTo(calls.keyOf(new CallId("42", "charge")))
          .isNotEqualTo(calls.keyOf(CallId.of(owner, "refund")))
          .isNotEqualTo(calls.keyOf(new CallId("43", "charge")));
    }
  }

  @Test
  void aResourceIsKnownByItsName() {
    Ownership ownership = new Ownership("account-7", "producer-1", Epoch.of(9), SOON);
    assertThat(CallId.of(ownership, "debit")).isEqualTo(new CallId("account-7", "debit"));
  }

  @Test
  void theSeparatorCannotBeForged() {
    assertThatThrownBy(() -> new CallId("42\0charge", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("job must be 1 to 200 characters");
  }

  @Test
  void badJobsAreRefusedNamingJob() {
    for (String bad : new String[] {null, "", "   ", "x".repeat(201), "a\nb", "\uD800"}) {
      assertThatThrownBy(() -> new CallId(bad, "charge"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "job must be 1 to 200 characters, not blank, without control characters, but was ");
    }
  }

  @Test
  void badStepsAreRefusedNamingStep() {
    for (String bad : new String[] {null, "", " \t", "s".repeat(201), "a\0b"}) {
      assertThatThrownBy(() -> new CallId("42", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("step must be 1 to 200 characters");
    }
    // the one rendering of bad values (Validate.quote): cut at 120 characters, NUL shown as \0
    assertThatThrownBy(() -> new CallId("42", "s".repeat(201)))
        .hasMessageEndingWith("but was '" + "s".repeat(120) + "...'");
    assertThatThrownBy(() -> new CallId("42", "a\0b")).hasMessageEndingWith("but was 'a\\0b'");
  }

  @Test
  void twoHundredCharactersAreEnough() {
    assertThat(new CallId("j".repeat(200), "s".repeat(200)).job()).hasSize(200);
  }
}
