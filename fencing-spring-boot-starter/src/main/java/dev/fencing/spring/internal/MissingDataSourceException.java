package dev.fencing.spring.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The application has no one {@link javax.sql.DataSource} for fencing: none, none configured, or
 * several and none primary. {@link MissingDataSourceFailureAnalyzer} reports it with what to add.
 */
final class MissingDataSourceException extends IllegalStateException {

  private static final String URL =
      "spring.datasource.url=jdbc:postgresql://<host>:5432/<database> (with"
          + " spring.datasource.username and spring.datasource.password)";

  private final String action;

  private MissingDataSourceException(String description, String action, @Nullable Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  /** The application has no DataSource bean, or Spring could not configure its own. */
  static MissingDataSourceException none(@Nullable Throwable cause) {
    return new MissingDataSourceException(
        "fencing needs a DataSource on PostgreSQL, but spring.datasource.url is not set and the"
            + " application defines no DataSource of its own.",
        "Set " + URL + " in application.properties, or define a DataSource bean.",
        cause);
  }

  /** The application has several DataSource beans and none is primary. */
  static MissingDataSourceException several(List<String> names) {
    return new MissingDataSourceException(
        "fencing needs one DataSource, but the application has "
            + names.size()
            + " and none is @Primary: "
            + String.join(", ", names)
            + ".",
        "Mark the DataSource bean fencing should use @Primary (one of "
            + String.join(", ", names)
            + "), or define a PostgresFencing bean built on it with"
            + " PostgresFencing.builder(dataSource).",
        null);
  }

  /** What the application should add. */
  String action() {
    return action;
  }
}
