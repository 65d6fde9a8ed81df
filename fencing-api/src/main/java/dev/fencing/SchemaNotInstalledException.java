package dev.fencing;

/**
 * The store's schema holds no fencing tables, or tables from an older version that lack a column
 * this jar reads. Nothing was written. Install the schema (the backend's builder does it unless
 * told not to) or run its migration.
 *
 * @since 0.1
 */
public final class SchemaNotInstalledException extends FencingException {

  private static final long serialVersionUID = 1L;

  private final String schema;

  /**
   * @param schema the schema looked in
   * @param message what is missing and how to install it
   */
  public SchemaNotInstalledException(String schema, String message) {
    super(message);
    this.schema = schema;
  }

  /** Returns the schema looked in. */
  public String schema() {
    return schema;
  }
}
