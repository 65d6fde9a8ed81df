package dev.fencing.testkit;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/** The Testcontainers route, in a class of its own so that its absence fails only this route. */
final class Containers {

  private Containers() {}

  static PostgresFixture.@Nullable Database startIfDockerAnswers() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      return null;
    }
    PostgreSQLContainer<?> container = new PostgreSQLContainer<>("postgres:17-alpine");
    container.start();
    Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "testcontainers-stop"));
    return new PostgresFixture.Database(
        container.getJdbcUrl(), container.getUsername(), container.getPassword(), "testcontainers");
  }
}
