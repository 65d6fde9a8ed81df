package dev.fencing;

/**
 * The store's schema is at a version this library may not run on: older than it needs (not yet
 * migrated, or installed before schema versions were recorded), or newer and no longer compatible
 * with it. Nothing was written. Migrate the schema (the backend's builder does it unless told not
 * to), or upgrade the library.
 *
 * @since 0.1
 */
public final class SchemaVersionException extends FencingException {

  private static final long serialVersionUID = 1L;

  private final String schema;
  private final int found;
  private final int expected;

  /**
   * @param schema the schema looked in
   * @param found the version the schema records, 0 when it records none
   * @param expected the version this library needs
   * @param message what was found, what is needed, and what to do
   */
  public SchemaVersionException(String schema, int found, int expected, String message) {
    super(message);
    this.schema = schema;
    this.found = found;
    this.expected = expected;
  }

  /** Returns the schema looked in. */
  public String schema() {
    return schema;
  }

  /** Returns the version the schema records, 0 when it records none. */
  public int found() {
    return found;
  }

  /** Returns the version this library needs. */
  public int expected() {
    return expected;
  }
}
