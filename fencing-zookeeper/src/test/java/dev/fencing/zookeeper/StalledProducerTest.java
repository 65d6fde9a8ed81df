package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.Ownership;
import dev.fencing.ResourceOwnership;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A producer in another JVM is frozen with {@code SIGSTOP}; its session expires, another client
 * takes the resource with a larger epoch, and when the producer is thawed with {@code SIGCONT} its
 * next renewal reports the ownership lost.
 */
class StalledProducerTest {

  @Test
  void aFrozenProducersSessionEndsAndItsRenewalIsLostWhenItWakes() throws Exception {
    try (ZooKeeperProcesses server = ZooKeeperProcesses.standalone("sigstop")) {
      String resource = "stalled-account";
      Process zombie =
          new ProcessBuilder(
                  ZooKeeperProcesses.javaBinary(),
                  "-Xmx128m",
                  "-XX:TieredStopAtLevel=1",
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                  "-cp",
                  ZooKeeperProcesses.classPath(),
                  ZombieProducer.class.getName(),
                  server.connectString(),
                  resource)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      try (BufferedReader out =
              new BufferedReader(
                  new InputStreamReader(zombie.getInputStream(), StandardCharsets.UTF_8));
          ResourceOwnership healthy = ZooKeeperOwnership.builder(server.connectString()).build()) {
        String first = out.readLine();
        assertThat(first).as("the producer's first line").startsWith("EPOCH ");
        long zombieEpoch = Long.parseLong(first.substring(6));
        assertThat(healthy.acquire(resource, "healthy", Duration.ofMinutes(1)))
            .isInstanceOf(Acquisition.Held.class);

        ZooKeeperProcesses.signal("STOP", zombie.pid());
        Instant frozen = Instant.now();
        Ownership taken = awaitAcquired(healthy, resource);
        System.out.printf(
            "zombie epoch %d frozen; healthy acquired epoch %d after %d ms%n",
            zombieEpoch, taken.epoch().value(), Duration.between(frozen, Instant.now()).toMillis());
        assertThat(taken.epoch().value()).isGreaterThan(zombieEpoch);

        ZooKeeperProcesses.signal("CONT", zombie.pid());
        String verdict = out.readLine();
        System.out.println("zombie after SIGCONT: " + verdict);
        assertThat(verdict).startsWith("LOST ");
        assertThat(zombie.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(healthy.holder(resource).orElseThrow().epoch()).isEqualTo(taken.epoch());
      } finally {
        if (zombie.isAlive()) {
          ZooKeeperProcesses.signal("CONT", zombie.pid());
          ZooKeeperProcesses.signal("KILL", zombie.pid());
          zombie.waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static Ownership awaitAcquired(ResourceOwnership client, String resource)
      throws IOException {
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      if (client.acquire(resource, "healthy", Duration.ofMinutes(1))
          instanceof Acquisition.Acquired acquired) {
        return acquired.ownership();
      }
      ZooKeeperProcesses.sleep(50);
    }
    throw new AssertionError("the frozen producer's session never ended");
  }
}
