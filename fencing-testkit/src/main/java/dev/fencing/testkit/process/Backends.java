package dev.fencing.testkit.process;

/** Loads the backend a process is told of by its class name. */
final class Backends {

  private Backends() {}

  /**
   * Returns a new instance of the class named {@code className}, a {@code type} with a public
   * no-argument constructor.
   *
   * @param named {@code type} as the message names it, with its article ("a FencingBackend")
   * @throws IllegalArgumentException if it cannot be loaded or built
   */
  static <T> T load(String className, Class<T> type, String named) {
    try {
      return Class.forName(className).asSubclass(type).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException(
          "backend must name "
              + named
              + " with a public no-argument constructor, but was '"
              + className
              + "': "
              + e,
          e);
    }
  }
}
