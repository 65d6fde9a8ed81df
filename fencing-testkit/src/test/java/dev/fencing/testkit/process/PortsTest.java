package dev.fencing.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

  @Test
  void theServersOfOneTestGetDistinctPortsBelowTheEphemeralRangeThatTheyCanBind()
      throws IOException {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      int port = Ports.freePort();
      assertThat(port).isBetween(20_000, 31_999);
      try (ServerSocket server = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(server.getLocalPort()).isEqualTo(port);
      }
      ports.add(port);
    }
    assertThat(ports).hasSize(100);
  }

  @Test
  void aPortSomeoneListensOnIsSkipped() throws IOException {
    int next = 20_000 + (Ports.freePort() - 20_000 + 1) % 12_000;
    try (ServerSocket taken = new ServerSocket(next, 1, InetAddress.getLoopbackAddress())) {
      assertThat(Ports.freePort()).isNotEqualTo(taken.getLocalPort());
    }
  }
}
