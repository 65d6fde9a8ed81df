package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The engine's stored name, read back in one place; a graph's engine is settled once. */
class EngineKindTest {

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void theStoredNameReadsBackAsTheEngine(EngineKind engine) {
    assertThat(EngineKind.ofStored(engine.stored())).isEqualTo(engine);
  }

  @Test
  void theStoredNamesAreTheSchemasOwn() {
    // what V1__fencing_schema.sql's check constraint and default accept
    assertThat(EngineKind.APPEND_ONLY.stored()).isEqualTo("append_only");
    assertThat(EngineKind.UPDATE_IN_PLACE.stored()).isEqualTo("update_in_place");
    assertThat(EngineKind.DEFAULT).isEqualTo(EngineKind.APPEND_ONLY);
  }

  @Test
  void anUnknownStoredNameIsRefusedByName() {
    assertThatThrownBy(() -> EngineKind.ofStored("APPEND_ONLY"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'APPEND_ONLY'")
        .hasMessageContaining("upgrade");
  }

  @Test
  void aGraphsEngineIsProvisionalUntilSettledAndSettledOnce() {
    EngineChoice choice = new EngineChoice(config(null));
    assertThat(choice.engine()).isEqualTo(EngineKind.DEFAULT);
    assertThat(new EngineChoice(config(EngineKind.UPDATE_IN_PLACE)).engine())
        .isEqualTo(EngineKind.UPDATE_IN_PLACE);

    choice.settle(EngineKind.UPDATE_IN_PLACE);
    choice.settle(EngineKind.UPDATE_IN_PLACE);
    assertThat(choice.engine()).isEqualTo(EngineKind.UPDATE_IN_PLACE);
    assertThat(choice.provisional()).isEqualTo(EngineKind.DEFAULT);
    assertThatThrownBy(() -> choice.settle(EngineKind.APPEND_ONLY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("settled as UPDATE_IN_PLACE, not APPEND_ONLY");
    assertThat(choice.engine()).isEqualTo(EngineKind.UPDATE_IN_PLACE);
  }

  private static Config config(EngineKind engine) {
    return new Config(
        "s", 5, 3, Duration.ofMillis(100), true, Config.DEFAULT_LINGER, false, engine);
  }
}
