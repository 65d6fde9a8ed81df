package dev.fencing.zookeeper;

import dev.fencing.Acquisition;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import java.time.Duration;

/**
 * A producer for {@link StalledProducerTest}, run as its own JVM: acquires the resource, prints
 * {@code EPOCH <n>}, then renews every 100 ms until a renewal is lost, prints {@code LOST <why>
 * <current>} and exits.
 */
public final class ZombieProducer {

  private ZombieProducer() {}

  /** Arguments: the connect string, the resource. */
  public static void main(String[] args) throws InterruptedException {
    Duration lease = Duration.ofMinutes(5);
    try (ResourceOwnership ownership =
        ZooKeeperOwnership.builder(args[0]).sessionTimeout(Duration.ofSeconds(1)).build()) {
      Acquisition acquisition = ownership.acquire(args[1], "zombie", lease);
      if (!(acquisition instanceof Acquisition.Acquired acquired)) {
        System.out.println("HELD " + acquisition);
        return;
      }
      Ownership owned = acquired.ownership();
      System.out.println("EPOCH " + owned.epoch().value());
      while (true) {
        Thread.sleep(100);
        OwnershipRenewal renewal = ownership.renew(owned, lease);
        if (renewal instanceof OwnershipRenewal.Lost lost) {
          System.out.println(
              "LOST "
                  + lost.why()
                  + " "
                  + (lost.current() == null ? "-" : lost.current().value())
                  + " "
                  + lost.detail());
          return;
        }
        owned = renewal.ownership();
      }
    }
  }
}
