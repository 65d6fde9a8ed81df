package dev.fencing.etcd;

import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.ServerProcess;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Real {@code etcd} processes on loopback with fast timings (heartbeat 50 ms, election timeout 500
 * ms, so the server's minimum lease TTL is 1 s), data and logs under {@code target/etcd/}. Every
 * process started here is ended by its pid in {@link #close()}, which also deletes the data (64 MB
 * of preallocated log per member) and keeps the logs.
 */
public final class EtcdCluster implements AutoCloseable {

  /** Where a test may point at another etcd binary. */
  static final String BIN_VARIABLE = "FENCING_ETCD_BIN";

  private final Path dir;
  private final List<Member> members;
  private final String token = "fencing-" + UUID.randomUUID();

  private record Member(String name, int clientPort, int peerPort, Path data) {
    String clientUrl() {
      return "http://127.0.0.1:" + clientPort;
    }

    String peerUrl() {
      return "http://127.0.0.1:" + peerPort;
    }
  }

  private final ServerProcess[] processes;

  private EtcdCluster(Path dir, List<Member> members) {
    this.dir = dir;
    this.members = members;
    this.processes = new ServerProcess[members.size()];
  }

  /** Starts {@code size} members and waits until the cluster answers writes. */
  public static EtcdCluster start(int size) {
    Path dir = Path.of("target", "etcd", UUID.randomUUID().toString().substring(0, 8));
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      members.add(new Member("m" + i, Ports.freePort(), Ports.freePort(), dir.resolve("m" + i)));
    }
    EtcdCluster cluster = new EtcdCluster(dir, members);
    try {
      for (int i = 0; i < size; i++) {
        cluster.startMember(i);
      }
      cluster.awaitUp(Duration.ofSeconds(30));
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The client URLs of all members. */
  public String[] endpoints() {
    return members.stream().map(Member::clientUrl).toArray(String[]::new);
  }

  /** The client URL of member {@code i}. */
  String endpoint(int i) {
    return members.get(i).clientUrl();
  }

  int size() {
    return members.size();
  }

  /** Starts member {@code i}; on its data directory it rejoins the cluster it was part of. */
  public void startMember(int i) {
    Member m = members.get(i);
    String cluster =
        members.stream().map(o -> o.name() + "=" + o.peerUrl()).collect(Collectors.joining(","));
    List<String> command =
        List.of(
            binary(),
            "--name",
            m.name(),
            "--data-dir",
            m.data().toString(),
            "--listen-client-urls",
            m.clientUrl(),
            "--advertise-client-urls",
            m.clientUrl(),
            "--listen-peer-urls",
            m.peerUrl(),
            "--initial-advertise-peer-urls",
            m.peerUrl(),
            "--initial-cluster",
            cluster,
            "--initial-cluster-token",
            token,
            "--initial-cluster-state",
            "new",
            "--heartbeat-interval",
            "50",
            "--election-timeout",
            "500");
    processes[i] =
        ServerProcess.builder(command)
            .name("etcd member " + i)
            .log(dir.resolve(m.name() + ".log"))
            .start();
  }

  /** Kills member {@code i} with SIGKILL and waits for it to be gone. */
  public void kill(int i) {
    ServerProcess process = processes[i];
    if (process == null) {
      return;
    }
    process.kill();
    processes[i] = null;
  }

  /** Returns whether member {@code i} accepts connections on its client port. */
  boolean listening(int i) {
    try (Socket socket = new Socket("127.0.0.1", members.get(i).clientPort())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Returns the index of the current leader as the members that answer see it, or -1 if none
   * answers with a leader.
   */
  int leader(Client client) {
    long[] ids = new long[members.size()];
    long leader = 0;
    for (int i = 0; i < members.size(); i++) {
      if (processes[i] == null) {
        continue;
      }
      try {
        StatusResponse status =
            client.getMaintenanceClient().statusMember(endpoint(i)).get(2, TimeUnit.SECONDS);
        ids[i] = status.getHeader().getMemberId();
        leader = status.getLeader() != 0 ? status.getLeader() : leader;
      } catch (Exception e) {
        // not answering: not the leader we can see
      }
    }
    for (int i = 0; i < ids.length; i++) {
      if (leader != 0 && ids[i] == leader) {
        return i;
      }
    }
    return -1;
  }

  /** Waits until the cluster answers a write through every running member's endpoint. */
  public void awaitUp(Duration within) {
    Instant deadline = Instant.now().plus(within);
    List<String> running =
        IntStream.range(0, members.size())
            .filter(i -> processes[i] != null)
            .mapToObj(this::endpoint)
            .toList();
    Throwable last = null;
    try (Client client = Client.builder().endpoints(running.toArray(String[]::new)).build()) {
      while (Instant.now().isBefore(deadline)) {
        try {
          client
              .getKVClient()
              .put(
                  io.etcd.jetcd.ByteSequence.from("/up".getBytes()),
                  io.etcd.jetcd.ByteSequence.from("1".getBytes()))
              .get(2, TimeUnit.SECONDS);
          return;
        } catch (Exception e) {
          last = e;
          checkAlive();
          sleep(100);
        }
      }
    }
    throw new AssertionError("etcd at " + running + " did not come up within " + within, last);
  }

  private void checkAlive() {
    for (ServerProcess process : processes) {
      if (process != null && !process.isAlive()) {
        throw new AssertionError(process + " exited\n" + process.logTail(30));
      }
    }
  }

  /** Kills every member still running, then deletes the data directories (the logs stay). */
  @Override
  public void close() {
    for (int i = 0; i < processes.length; i++) {
      kill(i);
    }
    for (Member member : members) {
      if (Files.exists(member.data())) {
        try (Stream<Path> files = Files.walk(member.data())) {
          files.sorted(Comparator.reverseOrder()).forEach(EtcdCluster::delete);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private static void delete(Path path) {
    try {
      Files.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String binary() {
    String configured = System.getenv(BIN_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      if (!Files.isExecutable(Path.of(configured))) {
        throw new AssertionError(BIN_VARIABLE + "=" + configured + " is not an executable file");
      }
      return configured;
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String entry : path.split(File.pathSeparator)) {
      Path candidate = Path.of(entry, "etcd");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    if (installFromDebian()) {
      return "/usr/bin/etcd";
    }
    throw new AssertionError(
        "no etcd binary on PATH: install it (Debian/Ubuntu: apt-get install etcd-server) or set "
            + BIN_VARIABLE
            + " to an etcd 3.4+ binary");
  }

  /**
   * On a Debian machine where the tests run as root (a fresh CI machine), installs Debian's {@code
   * etcd-server} once, so that {@code ./mvnw verify} alone passes there; {@code
   * FENCING_ETCD_INSTALL=no} turns this off. Returns whether {@code /usr/bin/etcd} is there after.
   */
  private static synchronized boolean installFromDebian() {
    Path etcd = Path.of("/usr/bin/etcd");
    if (Files.isExecutable(etcd)) {
      return true;
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (!root
        || "no".equals(System.getenv("FENCING_ETCD_INSTALL"))
        || !Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
      return false;
    }
    System.err.println(
        "etcd not found: installing Debian's etcd-server (FENCING_ETCD_INSTALL=no to refuse)");
    try {
      Process install =
          new ProcessBuilder(
                  "sh",
                  "-c",
                  "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"
                      + " etcd-server")
              .inheritIO()
              .start();
      if (!install.waitFor(10, java.util.concurrent.TimeUnit.MINUTES)) {
        install.destroyForcibly();
        return false;
      }
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return Files.isExecutable(etcd);
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
