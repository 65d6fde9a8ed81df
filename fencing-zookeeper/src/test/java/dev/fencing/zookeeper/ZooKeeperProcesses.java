package dev.fencing.zookeeper;

import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * ZooKeeper servers (the {@code org.apache.zookeeper:zookeeper} jar on the test class path), each a
 * separate OS process on loopback with its own ports and data directory, ended by pid. Other
 * modules' tests use it through this module's test jar.
 */
public final class ZooKeeperProcesses implements AutoCloseable {

  /** The server's tick: sessions may be as short as 2 ticks and at most 20. */
  static final Duration TICK = Duration.ofMillis(200);

  private final Path dir;
  private final int[] clientPorts;
  private final List<String> quorumLines = new ArrayList<>();
  private final ServerProcess[] processes;

  private ZooKeeperProcesses(Path dir, int servers) throws IOException {
    this.dir = dir;
    this.clientPorts = new int[servers];
    this.processes = new ServerProcess[servers];
    for (int i = 0; i < servers; i++) {
      clientPorts[i] = Ports.freePort();
      if (servers > 1) {
        quorumLines.add(
            "server."
                + (i + 1)
                + "=127.0.0.1:"
                + Ports.freePort()
                + ":"
                + Ports.freePort()
                + ";127.0.0.1:"
                + clientPorts[i]);
      }
    }
  }

  /** Starts one standalone server. */
  public static ZooKeeperProcesses standalone(String name) throws IOException {
    return started(new ZooKeeperProcesses(dataRoot(name), 1));
  }

  /** Starts an ensemble of {@code size} servers and waits until it has a leader. */
  public static ZooKeeperProcesses ensemble(String name, int size) throws IOException {
    return started(new ZooKeeperProcesses(dataRoot(name), size));
  }

  /** Starts every server and waits until each serves; on failure ends those it started. */
  private static ZooKeeperProcesses started(ZooKeeperProcesses servers) throws IOException {
    try {
      for (int i = 0; i < servers.size(); i++) {
        servers.start(i);
      }
      for (int i = 0; i < servers.size(); i++) {
        servers.awaitServing(i);
      }
      return servers;
    } catch (IOException | RuntimeException | Error e) {
      servers.close();
      throw e;
    }
  }

  /** The connect string naming every server. */
  public String connectString() {
    return IntStream.of(clientPorts)
        .mapToObj(port -> "127.0.0.1:" + port)
        .collect(Collectors.joining(","));
  }

  /** How many servers there are. */
  public int size() {
    return clientPorts.length;
  }

  /** Starts server {@code index} (again), with its data directory as it was. */
  public void start(int index) throws IOException {
    Path data = dir.resolve("server-" + (index + 1));
    Files.createDirectories(data);
    StringBuilder cfg = new StringBuilder();
    cfg.append("tickTime=")
        .append(TICK.toMillis())
        .append('\n')
        .append("initLimit=10\nsyncLimit=5\n")
        .append("dataDir=")
        .append(data.toAbsolutePath())
        .append('\n')
        .append("clientPort=")
        .append(clientPorts[index])
        .append('\n')
        .append("clientPortAddress=127.0.0.1\n")
        .append("4lw.commands.whitelist=srvr,stat,ruok\n")
        .append("admin.enableServer=false\n");
    quorumLines.forEach(line -> cfg.append(line).append('\n'));
    Path cfgFile = data.resolve("zoo.cfg").toAbsolutePath();
    Files.writeString(cfgFile, cfg);
    String main;
    if (size() > 1) {
      Files.writeString(data.resolve("myid"), Integer.toString(index + 1));
      main = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    } else {
      main = "org.apache.zookeeper.server.ZooKeeperServerMain";
    }
    processes[index] =
        ServerProcess.builder(
                javaBinary(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dzookeeper.jmx.log4j.disable=true",
                "-cp",
                classPath(),
                main,
                cfgFile.toString())
            .name("ZooKeeper server " + (index + 1))
            .log(data.resolve("server.log"))
            .start();
  }

  /** Waits until server {@code index} answers {@code srvr} with a mode, within 30 s. */
  public void awaitServing(int index) {
    processes[index].await(
        "an answer to srvr with a mode", () -> mode(index).isPresent(), Duration.ofSeconds(30));
  }

  /** Returns the index of the server that says it leads, if one does. */
  public Optional<Integer> leader() {
    return IntStream.range(0, size())
        .filter(i -> mode(i).filter(mode -> mode.equals("leader")).isPresent())
        .boxed()
        .findFirst();
  }

  /** Returns the server's mode (standalone, leader, follower), or empty if it does not serve. */
  public Optional<String> mode(int index) {
    if (processes[index] == null || !processes[index].isAlive()) {
      return Optional.empty();
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", clientPorts[index]), 500);
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      return answer
          .lines()
          .filter(line -> line.startsWith("Mode: "))
          .map(line -> line.substring(6).trim())
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Kills server {@code index} with SIGKILL, by its pid, and waits until it is gone. */
  public void kill(int index) {
    if (processes[index] != null) {
      processes[index].kill();
    }
  }

  /** The pid of server {@code index}. */
  public long pid(int index) {
    return processes[index].pid();
  }

  @Override
  public void close() {
    for (int i = 0; i < size(); i++) {
      kill(i);
    }
  }

  /** The java binary that runs this test. */
  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The test class path, which holds the ZooKeeper server and the test classes. */
  static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    String path = surefire != null ? surefire : System.getProperty("java.class.path");
    if (!path.contains("zookeeper-3")) {
      throw new AssertionError(
          "the ZooKeeper server jar is not on the test class path ("
              + path
              + "): run the tests with ./mvnw, which puts org.apache.zookeeper:zookeeper there");
    }
    return path;
  }

  private static Path dataRoot(String name) throws IOException {
    Path target = Path.of("target");
    Files.createDirectories(target);
    return Files.createTempDirectory(target, "zk-" + name + "-").toAbsolutePath();
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
