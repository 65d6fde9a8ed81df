package dev.fencing.console;

import dev.fencing.postgres.PostgresFencing;

class AppendOnlyZombieHistoryTest extends ZombieHistoryTest {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.APPEND_ONLY;
  }
}
