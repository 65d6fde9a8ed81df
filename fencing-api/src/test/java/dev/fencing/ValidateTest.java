package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ValidateTest {

  @Test
  void epochsStartAtOneAndOnlyGoUp() {
    assertThat(Epoch.FIRST.next()).isEqualTo(Epoch.of(2));
    assertThat(Epoch.of(3).isNewerThan(Epoch.of(2))).isTrue();
    assertThat(Epoch.of(2).isNewerThan(Epoch.of(2))).isFalse();
    assertThatThrownBy(() -> Epoch.of(0)).hasMessage("epoch must be at least 1, but was 0");
    assertThatThrownBy(() -> Epoch.of(Long.MAX_VALUE).next())
        .isInstanceOf(ArithmeticException.class);
  }

  @Test
  void identifiersArePlainLowerCaseNames() {
    assertThat(Validate.identifier("queue", "emails_2")).isEqualTo("emails_2");
    for (String bad : new String[] {"x; drop table", "Emails", "2x", "", "a-b", "x".repeat(64)}) {
      assertThatThrownBy(() -> Validate.identifier("queue", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("queue must be a plain identifier")
          .hasMessageEndingWith("but was '" + bad + "'");
    }
    assertThatThrownBy(() -> Validate.identifier("schema", null))
        .hasMessageEndingWith("but was null");
  }

  @Test
  void leaseLengthsAreBetweenAMillisecondAndADay() {
    assertThat(Validate.leaseLength(Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
    assertThat(Validate.leaseLength(Duration.ofHours(24))).isEqualTo(Duration.ofHours(24));
    assertThatThrownBy(() -> Validate.leaseLength(Duration.ofSeconds(-5)))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was PT-5S");
    assertThatThrownBy(() -> Validate.leaseLength(Duration.ofHours(24).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ownersAndLeasesAreChecked() {
    assertThatThrownBy(() -> new Lease(1, " ", Epoch.FIRST, Instant.EPOCH))
        .hasMessageContaining("owner")
        .hasMessageContaining("' '");
    assertThatThrownBy(() -> new Lease(-3, "w", Epoch.FIRST, Instant.EPOCH))
        .hasMessage("jobId must be at least 1, but was -3");
    assertThat(new Lease(42, "w", Epoch.FIRST, Instant.EPOCH).key()).isEqualTo("42");
  }

  @Test
  void keysAndOwnersThatAStoreWouldChangeAreRefused() {
    for (String bad : new String[] {"a\ud800b", "a\udc00", "x\u0000y", "\ud800"}) {
      assertThatThrownBy(() -> Validate.key(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("key must be non-blank well-formed text");
      assertThatThrownBy(() -> Validate.owner(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("owner must be non-blank well-formed text")
          .hasMessageNotContaining("\u0000");
    }
    assertThat(Validate.key("emoji \ud83d\ude00 ok")).isEqualTo("emoji \ud83d\ude00 ok");
  }

  @Test
  void jsonIsLeftToTheStoreButNullIsRefusedByName() {
    assertThat(Validate.json("payload", "not json, the store decides")).isNotNull();
    assertThatThrownBy(() -> Validate.json("payload", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void aRefusalExplainsItselfAndKeepsTheEpochThatWon() {
    FencedOffException e =
        new FencedOffException(
            new FencedOutcome.Superseded("7", Epoch.FIRST, Epoch.of(2), "healthy"));
    assertThat(e.getMessage())
        .isEqualTo("fenced off: 7 at epoch 1: a newer claim owns it (epoch 2, owner 'healthy')");
    assertThat(e.currentEpoch()).contains(Epoch.of(2));
    assertThat(
            FencedOffException.requireAccepted(new FencedOutcome.Accepted("7", Epoch.FIRST, false))
                .isAccepted())
        .isTrue();
    assertThatThrownBy(
            () ->
                FencedOffException.requireAccepted(
                    new FencedOutcome.LeaseExpired("7", Epoch.FIRST, Instant.EPOCH)))
        .isInstanceOf(FencedOffException.class)
        .hasMessageContaining("nobody has reclaimed it yet");
  }

  @Test
  void batchSizesAreBetweenOneAndTenThousand() {
    assertThat(Validate.batchSize(1)).isEqualTo(1);
    assertThat(Validate.batchSize(10_000)).isEqualTo(10_000);
    assertThatThrownBy(() -> Validate.batchSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize must be between 1 and 10000, but was 0");
    assertThatThrownBy(() -> Validate.batchSize(10_001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize must be between 1 and 10000, but was 10001");
  }

  @Test
  void maxAttemptsAreBetweenOneAndAThousand() {
    assertThat(Validate.maxAttempts(1)).isEqualTo(1);
    assertThat(Validate.maxAttempts(1_000)).isEqualTo(1_000);
    assertThatThrownBy(() -> Validate.maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> Validate.maxAttempts(1_001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 1000, but was 1001");
  }

  @Test
  void aFractionIsInRangeWithItsEndsIncludedOrExcludedAndNeverNaN() {
    assertThat(Validate.between("safetyFactor", 1.0, 1, 100)).isEqualTo(1.0);
    assertThat(Validate.between("safetyFactor", 100.0, 1, 100)).isEqualTo(100.0);
    assertThatThrownBy(() -> Validate.between("safetyFactor", 0.5, 1, 100))
        .hasMessage("safetyFactor must be between 1 and 100, but was 0.5");
    assertThatThrownBy(() -> Validate.between("safetyFactor", Double.NaN, 1, 100))
        .hasMessage("safetyFactor must be between 1 and 100, but was NaN");
    assertThat(Validate.above("rate", 0.5, 0, 1)).isEqualTo(0.5);
    for (double bad : new double[] {0, 1, Double.NaN}) {
      assertThatThrownBy(() -> Validate.above("rate", bad, 0, 1))
          .hasMessage("rate must be above 0 and below 1, but was " + bad);
    }
  }

  @Test
  void jobIdsStartAtOneAndComeBackUnchanged() {
    assertThat(Validate.jobId(1)).isEqualTo(1);
    assertThat(Validate.jobId(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> Validate.jobId(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jobId must be at least 1, but was 0");
  }

  @Test
  void aMissingDurationIsRefusedByNameNotWithANullPointer() {
    assertThatThrownBy(() -> Validate.leaseLength(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was null");
    assertThatThrownBy(() -> Validate.delay("retryDelay", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryDelay must be between PT0S and PT24H, but was null");
  }

  @Test
  void delaysAreBetweenZeroAndADayInclusive() {
    assertThat(Validate.delay("retryDelay", Duration.ZERO)).isEqualTo(Duration.ZERO);
    assertThat(Validate.delay("retryDelay", Duration.ofHours(24))).isEqualTo(Duration.ofHours(24));
    assertThatThrownBy(() -> Validate.delay("retryDelay", Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retryDelay must be between PT0S and PT24H");
    assertThatThrownBy(() -> Validate.delay("retryDelay", Duration.ofHours(24).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retryDelay must be between");
    assertThatThrownBy(() -> Validate.leaseLength(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was PT0S");
  }

  @Test
  void keysUpToFiveHundredCharactersComeBackUnchanged() {
    String longest = "k".repeat(Validate.MAX_KEY_LENGTH);
    assertThat(Validate.key(longest)).isSameAs(longest);
    assertThat(Validate.key("a")).isEqualTo("a");
    assertThatThrownBy(() -> Validate.key(longest + "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must be non-blank well-formed text of at most 500 characters");
  }

  @Test
  void missingOrBlankKeysAreRefusedByName() {
    assertThatThrownBy(() -> Validate.key(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "key must be non-blank well-formed text of at most 500 characters, but was null");
    for (String blank : new String[] {"", " ", "\t\n"}) {
      assertThatThrownBy(() -> Validate.key(blank))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("key must be non-blank");
    }
  }

  @Test
  void ownersUpToTwoHundredCharactersComeBackUnchanged() {
    String longest = "o".repeat(Validate.MAX_OWNER_LENGTH);
    assertThat(Validate.owner(longest)).isSameAs(longest);
    assertThat(Validate.owner("w")).isEqualTo("w");
    assertThatThrownBy(() -> Validate.owner(longest + "o"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "owner must be non-blank well-formed text of at most 200 characters");
    assertThatThrownBy(() -> Validate.owner(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "owner must be non-blank well-formed text of at most 200 characters, but was null");
    assertThatThrownBy(() -> Validate.owner(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was ''");
  }

  @Test
  void aRefusedValueIsShownUpTo120CharactersAndItsNulAsBackslashZero() {
    String shown = "x".repeat(119) + "\0";
    assertThatThrownBy(() -> Validate.owner(shown))
        .hasMessageEndingWith("but was '" + "x".repeat(119) + "\\0'");
    String cut = "y".repeat(120) + "\0";
    assertThatThrownBy(() -> Validate.owner(cut))
        .hasMessageEndingWith("but was '" + "y".repeat(120) + "...'");
  }

  @Test
  void surrogatePairsAreWellFormedButHalvesAreNot() {
    assertThat(Validate.owner("\ud83d\ude00")).isEqualTo("\ud83d\ude00");
    assertThat(Validate.owner("a\ud83d\ude00b\ud83d\ude00"))
        .isEqualTo("a\ud83d\ude00b\ud83d\ude00");
    for (String bad : new String[] {"\ude00\ud83d", "ab\ud83d", "\ud83d\ud83d\ude00", "\u0000"}) {
      assertThatThrownBy(() -> Validate.owner(bad)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void jsonComesBackUnchanged() {
    String json = "{\"a\": 1}";
    assertThat(Validate.json("payload", json)).isSameAs(json);
  }

  @Test
  void identifiersOfSixtyThreeCharactersAreAccepted() {
    String longest = "a" + "b".repeat(62);
    assertThat(Validate.identifier("name", longest)).isSameAs(longest);
    assertThat(Validate.identifier("name", "_")).isEqualTo("_");
  }

  @Test
  void betweenAcceptsBothEndsAndRefusesOneBeyondNamingTheParameterAndValue() {
    assertThat(Validate.between("n", 2, 2, 5)).isEqualTo(2);
    assertThat(Validate.between("n", 5, 2, 5)).isEqualTo(5);
    assertThatThrownBy(() -> Validate.between("n", 1, 2, 5))
        .hasMessage("n must be between 2 and 5, but was 1");
    assertThatThrownBy(() -> Validate.between("n", 6, 2, 5))
        .hasMessage("n must be between 2 and 5, but was 6");
    assertThat(Validate.between("size", 2L, 2L, 5L)).isEqualTo(2L);
    assertThat(Validate.between("size", 5L, 2L, 5L)).isEqualTo(5L);
    assertThatThrownBy(() -> Validate.between("size", 1L, 2L, 5L))
        .hasMessage("size must be between 2 and 5, but was 1");
    assertThatThrownBy(() -> Validate.between("size", 6L, 2L, 5L))
        .hasMessage("size must be between 2 and 5, but was 6");
  }

  @Test
  void aMissingSchemaNamesTheSchemaLookedIn() {
    SchemaNotInstalledException e = new SchemaNotInstalledException("jobs", "no tables in jobs");
    assertThat(e.schema()).isEqualTo("jobs");
    assertThat(e).hasMessage("no tables in jobs").isInstanceOf(FencingException.class);
  }

  @Test
  void wellFormedTextHasNoNulNoUnpairedSurrogateAndOnRequestNoControlCharacter() {
    assertThat(Validate.wellFormed("a\tb \uD83D\uDE00", false)).isTrue();
    assertThat(Validate.wellFormed("a\tb", true)).isFalse();
    assertThat(Validate.wellFormed("ab \uD83D\uDE00", true)).isTrue();
    assertThat(Validate.wellFormed("a\0b", false)).isFalse();
    assertThat(Validate.wellFormed("a\uD83D", false)).isFalse();
    assertThat(Validate.wellFormed("a\uD83Db", false)).isFalse();
    assertThat(Validate.wellFormed("a\uDE00b", false)).isFalse();
  }
}
