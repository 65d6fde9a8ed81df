package dev.fencing.testkit.process;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers a test starts: PostgreSQL, ZooKeeper, etcd, an HTTP service.
 *
 * @since 0.1
 */
public final class Ports {

  /** Below Linux's ephemeral range (32768-60999), which outgoing connections take ports from. */
  private static final int LOWEST = 20_000;

  private static final int COUNT = 12_000;

  /** Where this JVM looks next; a random start, so that test JVMs side by side rarely collide. */
  private static final AtomicInteger NEXT =
      new AtomicInteger(ThreadLocalRandom.current().nextInt(COUNT));

  private Ports() {}

  /**
   * Returns a port from 20000 to 31999 that nobody listened on at the loopback address when asked.
   * The range lies below the kernel's ephemeral range, so no outgoing connection (a client's,
   * PostgreSQL's) takes the port between this call and the server's bind, which once failed a
   * failover test with a port the kernel had chosen. This JVM hands out each port once in 12,000
   * calls, so the servers of one test never get the same port.
   *
   * @throws IllegalStateException if every port of the range was taken
   */
  public static int freePort() {
    for (int tries = 0; tries < COUNT; tries++) {
      int port = LOWEST + Math.floorMod(NEXT.getAndIncrement(), COUNT);
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try the next one
      }
    }
    throw new IllegalStateException(
        "no free loopback port from " + LOWEST + " to " + (LOWEST + COUNT - 1));
  }
}
