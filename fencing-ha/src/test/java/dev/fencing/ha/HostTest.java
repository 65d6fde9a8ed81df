package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A machine without the binaries fails the failover tests, saying what to install. */
class HostTest {

  @Test
  void missingBinariesFailNamingTheDebianPackages() {
    assertThatThrownBy(() -> Host.requireBinaries("/nonexistent", Path.of("/nonexistent"), true))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("etcd (not on PATH)")
        .hasMessageContaining("patroni (not on PATH)")
        .hasMessageContaining("setpriv (not on PATH)")
        .hasMessageContaining("/nonexistent/postgres")
        .hasMessageContaining("apt-get install -y patroni etcd-server postgresql-15");
  }

  @Test
  void thisMachineHasThem() {
    assertThatCode(Host::requireBinaries).doesNotThrowAnyException();
  }
}
