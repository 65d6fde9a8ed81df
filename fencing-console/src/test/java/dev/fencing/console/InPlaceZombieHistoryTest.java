package dev.fencing.console;

import dev.fencing.postgres.PostgresFencing;

class InPlaceZombieHistoryTest extends ZombieHistoryTest {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.UPDATE_IN_PLACE;
  }
}
