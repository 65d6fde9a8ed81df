package dev.fencing.testkit.db;

import javax.sql.DataSource;

/**
 * An empty schema of a test's own on the fixture's PostgreSQL.
 *
 * @param database the server
 * @param name the schema's name, a plain identifier
 * @since 0.1
 */
public record TestSchema(PostgresFixture.Database database, String name) {

  /** Returns a new, unpooled data source for the server. */
  public DataSource dataSource() {
    return database.dataSource();
  }

  /**
   * Returns the server's shared pool ({@link PostgresFixture.Database#sharedPool()}): for tests
   * that make many short calls and leave no session state behind.
   */
  public DataSource sharedPool() {
    return database.sharedPool();
  }

  /** Returns a HikariCP pool of at most {@code maxSize} connections to the server. */
  public DataSource pooledDataSource(int maxSize) {
    return database.pooledDataSource(maxSize);
  }
}
