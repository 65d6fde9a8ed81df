package dev.fencing.testkit.db;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/** The Testcontainers route, in a class of its own so that its absence fails only this route. */
final class Containers {

  private Containers() {}

  /** Where the started container listens, and who may log in. */
  record Started(String jdbcUrl, String user, String password) {}

  /** Starts a PostgreSQL 17 container, or returns null when no Docker engine answers. */
  static @Nullable Started startIfDockerAnswers() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      return null;
    }
    PostgreSQLContainer<?> container = new PostgreSQLContainer<>("postgres:17-alpine");
    container.start();
    Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "testcontainers-stop"));
    return new Started(container.getJdbcUrl(), container.getUsername(), container.getPassword());
  }
}
