package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FollowPrimaryCallbackTest {

  @Test
  void aDirectoryWithWhitespaceIsRefusedNamingIt() {
    assertThatThrownBy(() -> FollowPrimaryCallback.install(Path.of("target", "two words")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dir must hold no whitespace")
        .hasMessageContaining("two words");
  }
}
