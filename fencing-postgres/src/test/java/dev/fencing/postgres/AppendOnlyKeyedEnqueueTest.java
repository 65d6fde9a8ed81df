package dev.fencing.postgres;

/** {@link KeyedEnqueueTest} on the append-only engine. */
class AppendOnlyKeyedEnqueueTest extends KeyedEnqueueTest {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.APPEND_ONLY;
  }
}
