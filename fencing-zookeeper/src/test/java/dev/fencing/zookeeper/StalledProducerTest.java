package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.Ownership;
import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.process.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A producer in another JVM is frozen with {@code SIGSTOP}; its session expires, another client
 * takes the resource with a larger epoch, and when the producer is thawed with {@code SIGCONT} its
 * next renewal reports the ownership lost.
 */
class StalledProducerTest {

  @Test
  void aFrozenProducersSessionEndsAndItsRenewalIsLostWhenItWakes() throws Exception {
    String resource = "stalled-account";
    try (ZooKeeperProcesses server = ZooKeeperProcesses.standalone("sigstop");
        ServerProcess zombie =
            ServerProcess.builder(
                    ZooKeeperProcesses.javaBinary(),
                    "-Xmx128m",
                    "-XX:TieredStopAtLevel=1",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                    "-cp",
                    ZooKeeperProcesses.classPath(),
                    ZombieProducer.class.getName(),
                    server.connectString(),
                    resource)
                .name("zombie producer")
                .log(Path.of("target", "zombie-producer.log"))
                .start();
        ResourceOwnership healthy = ZooKeeperOwnership.builder(server.connectString()).build()) {
      String first =
          zombie.awaitLogLine(
              line -> line.startsWith("EPOCH ") || line.startsWith("HELD "),
              Duration.ofSeconds(60));
      assertThat(first).as("the producer's first line").startsWith("EPOCH ");
      long zombieEpoch = Long.parseLong(first.substring(6));
      assertThat(healthy.acquire(resource, "healthy", Duration.ofMinutes(1)))
          .isInstanceOf(Acquisition.Held.class);

      zombie.freeze();
      Instant frozen = Instant.now();
      Ownership taken = awaitAcquired(healthy, resource);
      System.out.printf(
          "zombie epoch %d frozen; healthy acquired epoch %d after %d ms%n",
          zombieEpoch, taken.epoch().value(), Duration.between(frozen, Instant.now()).toMillis());
      assertThat(taken.epoch().value()).isGreaterThan(zombieEpoch);

      zombie.thaw();
      String verdict =
          zombie.awaitLogLine(line -> line.startsWith("LOST "), Duration.ofSeconds(20));
      System.out.println("zombie after SIGCONT: " + verdict);
      assertThat(zombie.awaitExit(Duration.ofSeconds(20))).isZero();
      assertThat(healthy.holder(resource).orElseThrow().epoch()).isEqualTo(taken.epoch());
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
