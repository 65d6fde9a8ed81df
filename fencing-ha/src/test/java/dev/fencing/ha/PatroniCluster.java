package dev.fencing.ha;

import dev.fencing.internal.Validate;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A replicated PostgreSQL 15: one etcd and {@code n} PostgreSQL nodes under Patroni (Debian's
 * {@code etcd-server}, {@code patroni} and {@code postgresql-15}), on free loopback ports, files
 * under {@code target/patroni/<random>/}. As root, Patroni runs as {@code postgres} (PostgreSQL
 * refuses root) through {@code setpriv}, which execs, so the pid kept is Patroni's own.
 *
 * <p>Every wait is bounded and fails with the tail of every log. {@link #close()} ends every
 * process by pid (Patroni, the postmasters and their children, etcd), waits for them, and deletes
 * the data directories; the logs stay.
 */
public final class PatroniCluster implements AutoCloseable {

  /** Where Debian's {@code postgresql-15} puts its binaries. */
  static final String PG_BIN = "/usr/lib/postgresql/15/bin";

  /** What to install when a binary is missing. */
  static final String PACKAGES = "apt-get install -y patroni etcd-server postgresql-15";

  private static final String USER = "postgres";
  private static final String PASSWORD = "postgres";
  private static final Duration REQUEST = Duration.ofSeconds(3);

  private final Path dir;
  private final int etcdClientPort = OsProcesses.freePort();
  private final int etcdPeerPort = OsProcesses.freePort();
  private final List<PatroniNode> nodes;
  private final Process[] patroni;
  private final Set<Long> started = new LinkedHashSet<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST).build();
  private Process etcd;
  private int lastLeader = -1;
  private boolean closed;

  private PatroniCluster(Path dir, int size) {
    this.dir = dir;
    this.nodes =
        IntStream.range(0, size)
            .mapToObj(
                i ->
                    new PatroniNode(
                        "pg" + (i + 1), OsProcesses.freePort(), OsProcesses.freePort(), dir))
            .toList();
    this.patroni = new Process[size];
  }

  /** Starts two nodes; see {@link #start(int)}. */
  public static PatroniCluster start() {
    return start(2);
  }

  /**
   * Starts etcd and {@code size} nodes and waits until one leads, takes writes, and every other
   * node streams from it.
   *
   * @throws IllegalArgumentException if {@code size} is not between 1 and 5
   * @throws AssertionError if a binary is missing (naming the Debian packages) or the cluster did
   *     not come up within 90 s (with the logs' tails)
   */
  public static PatroniCluster start(int size) {
    Validate.between("size", size, 1, 5);
    checkBinaries();
    Path dir = Path.of("target", "patroni", UUID.randomUUID().toString().substring(0, 8));
    PatroniCluster cluster = new PatroniCluster(dir.toAbsolutePath(), size);
    try {
      cluster.startEtcd();
      for (int i = 0; i < size; i++) {
        cluster.startNode(i);
      }
      cluster.awaitHealthy(Duration.ofSeconds(90));
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** How many nodes there are. */
  public int size() {
    return nodes.size();
  }

  /** A URL naming every node that reaches the primary, whichever it is (user/password postgres). */
  public String jdbcUrl() {
    return nodes.stream()
        .map(node -> "127.0.0.1:" + node.pgPort())
        .collect(
            Collectors.joining(
                ",", "jdbc:postgresql://", "/postgres?targetServerType=primary&connectTimeout=2"));
  }

  /** A URL of node {@code i} alone, primary or not. */
  public String nodeUrl(int i) {
    return "jdbc:postgresql://127.0.0.1:" + nodes.get(i).pgPort() + "/postgres?connectTimeout=2";
  }

  /** The user of both URLs. */
  public String user() {
    return USER;
  }

  /** The password of both URLs. */
  public String password() {
    return PASSWORD;
  }

  /**
   * The index of the node whose Patroni says it is the running primary ({@code GET /primary}).
   *
   * @throws AssertionError if none says so now
   */
  public int leader() {
    for (int i = 0; i < size(); i++) {
      if (running(i) && get(i, "/primary") == 200) {
        return i;
      }
    }
    throw new AssertionError("no node says it is the primary\n" + diagnostics());
  }

  /** The timeline the leader writes on, from the name of its current WAL file. */
  public long timeline() {
    return Long.parseLong(
        query(leader(), "select substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"), 16);
  }

  /** Runs {@code sql} on node {@code i} and returns the first column of its one row as text. */
  public String query(int i, String sql) {
    try (Connection c = connect(i);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new AssertionError("no row from node " + i + " for " + sql);
      }
      return rs.getString(1);
    } catch (SQLException e) {
      throw new AssertionError("on node " + i + " (" + nodeUrl(i) + "): " + sql + ": " + e, e);
    }
  }

  /**
   * Kills the leader's Patroni and then its postmaster with SIGKILL, by pid, and waits until both
   * are gone (the postmaster's children follow it by themselves).
   *
   * @return the index of the node killed
   */
  public int killLeader() {
    int leader = leader();
    long postmaster = OsProcesses.postmasterPid(nodes.get(leader).dataDir());
    long patroniPid = patroni[leader].pid();
    rememberDescendants(leader);
    OsProcesses.kill(patroniPid);
    if (postmaster > 0) {
      OsProcesses.kill(postmaster);
    }
    List<Long> left =
        OsProcesses.awaitGone(List.of(patroniPid, postmaster), Duration.ofSeconds(10));
    if (!left.isEmpty()) {
      throw new AssertionError("pids " + left + " outlived SIGKILL\n" + diagnostics());
    }
    patroni[leader] = null;
    lastLeader = leader;
    return leader;
  }

  /**
   * Waits until a node other than the last one killed or switched away from is the primary and
   * takes a write.
   *
   * @return its index
   * @throws AssertionError if none does within {@code within}, with the logs' tails
   */
  public int awaitNewLeader(Duration within) {
    int old = lastLeader;
    return await(
        within,
        "a new writable leader (not node " + old + ")",
        () -> {
          for (int i = 0; i < size(); i++) {
            if (i != old && running(i) && get(i, "/primary") == 200 && writable(i)) {
              return i;
            }
          }
          return null;
        });
  }

  /**
   * Hands the leadership to another running node ({@code POST /switchover}) and waits until it
   * takes writes.
   *
   * @return the new leader's index
   */
  public int switchover() {
    int leader = leader();
    int candidate =
        IntStream.range(0, size())
            .filter(i -> i != leader && running(i))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no running replica to switch over to"));
    String body =
        "{\"leader\": \"%s\", \"candidate\": \"%s\"}"
            .formatted(nodes.get(leader).name(), nodes.get(candidate).name());
    HttpResponse<String> answer = send(leader, "POST", "/switchover", body);
    if (answer.statusCode() != 200) {
      throw new AssertionError("switchover refused: " + answer.statusCode() + " " + answer.body());
    }
    lastLeader = leader;
    return awaitNewLeader(Duration.ofSeconds(60));
  }

  /**
   * Turns Patroni's synchronous mode on or off ({@code PATCH /config}); with it on, Patroni names a
   * replica in {@code synchronous_standby_names}. See {@link #awaitSynchronousStandby}.
   */
  public void setSynchronousMode(boolean on) {
    HttpResponse<String> answer =
        send(leader(), "PATCH", "/config", "{\"synchronous_mode\": " + on + "}");
    if (answer.statusCode() != 200) {
      throw new AssertionError(
          "PATCH /config refused: " + answer.statusCode() + " " + answer.body());
    }
  }

  /**
   * Waits until the leader has a standby whose {@code pg_stat_replication.sync_state} is {@code
   * sync}, and returns its application name (the node's name).
   */
  public String awaitSynchronousStandby(Duration within) {
    String sql =
        "select coalesce(min(application_name), '') from pg_stat_replication"
            + " where sync_state = 'sync' and state = 'streaming'";
    return await(
        within,
        "a synchronous standby",
        () -> {
          String name = ask(this::leader, sql);
          return name == null || name.isEmpty() ? null : name;
        });
  }

  /** Starts (again) the Patroni of node {@code i}; a killed leader rejoins as a replica. */
  public void startNode(int i) {
    PatroniNode node = nodes.get(i);
    if (running(i)) {
      throw new IllegalStateException("node " + i + " runs already");
    }
    try {
      Files.writeString(
          node.config(), node.yaml("fencing-" + dir.getFileName(), etcdClientPort, PG_BIN));
      List<String> command = new ArrayList<>();
      if (root()) {
        command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
        chown(dir);
      }
      command.addAll(List.of("patroni", node.config().toString()));
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile()));
      builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
      builder.environment().put("HOME", dir.toString());
      patroni[i] = builder.start();
      started.add(patroni[i].pid());
    } catch (IOException e) {
      throw new AssertionError("could not start Patroni for node " + i + ": " + e, e);
    }
  }

  /**
   * Waits until a node leads and takes writes, and every other running node streams from it.
   *
   * @throws AssertionError if not within {@code within}, with the logs' tails
   */
  public void awaitHealthy(Duration within) {
    await(
        within,
        "a writable leader with every running replica streaming",
        () -> {
          Integer leader = null;
          for (int i = 0; i < size(); i++) {
            if (running(i) && get(i, "/primary") == 200 && writable(i)) {
              leader = i;
            }
          }
          if (leader == null) {
            return null;
          }
          int lead = leader;
          String streaming =
              ask(() -> lead, "select count(*) from pg_stat_replication where state = 'streaming'");
          long replicas = IntStream.range(0, size()).filter(i -> i != lead && running(i)).count();
          return streaming != null && Long.parseLong(streaming) == replicas ? leader : null;
        });
  }

  /** Every pid this cluster started or saw under Patroni (postmasters and their children). */
  public Set<Long> pids() {
    for (int i = 0; i < size(); i++) {
      if (running(i)) {
        rememberDescendants(i);
      }
    }
    return Set.copyOf(started);
  }

  /**
   * Stops every Patroni with SIGTERM (each stops its PostgreSQL), then etcd; SIGKILL for what is
   * left after 20 s; waits for every pid; deletes the data directories and keeps the logs.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pids();
    for (int i = 0; i < size(); i++) {
      if (running(i)) {
        OsProcesses.terminate(patroni[i].pid());
      }
    }
    List<Long> patroniPids =
        started.stream().filter(pid -> etcd == null || pid != etcd.pid()).toList();
    List<Long> left = OsProcesses.awaitGone(patroniPids, Duration.ofSeconds(20));
    left.forEach(OsProcesses::kill);
    if (etcd != null) {
      OsProcesses.terminate(etcd.pid());
      if (!OsProcesses.awaitGone(List.of(etcd.pid()), Duration.ofSeconds(10)).isEmpty()) {
        OsProcesses.kill(etcd.pid());
      }
    }
    List<Long> stuck = OsProcesses.awaitGone(started, Duration.ofSeconds(10));
    if (!stuck.isEmpty()) {
      throw new AssertionError("pids " + stuck + " outlived SIGKILL; see " + dir);
    }
    Stream.concat(nodes.stream().map(PatroniNode::dataDir), Stream.of(dir.resolve("etcd")))
        .forEach(PatroniCluster::deleteTree);
  }

  @Override
  public String toString() {
    return "PatroniCluster[" + dir + ", " + jdbcUrl() + "]";
  }

  private void startEtcd() {
    String client = "http://127.0.0.1:" + etcdClientPort;
    String peer = "http://127.0.0.1:" + etcdPeerPort;
    try {
      Files.createDirectories(dir);
      etcd =
          new ProcessBuilder(
                  "etcd",
                  "--name=e1",
                  "--data-dir=" + dir.resolve("etcd"),
                  "--listen-client-urls=" + client,
                  "--advertise-client-urls=" + client,
                  "--listen-peer-urls=" + peer,
                  "--initial-advertise-peer-urls=" + peer,
                  "--initial-cluster=e1=" + peer,
                  "--initial-cluster-token=" + dir.getFileName())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()))
              .start();
      started.add(etcd.pid());
    } catch (IOException e) {
      throw new AssertionError("could not start etcd: " + e, e);
    }
  }

  private boolean running(int i) {
    return patroni[i] != null && patroni[i].isAlive();
  }

  private void rememberDescendants(int i) {
    patroni[i].toHandle().descendants().forEach(handle -> started.add(handle.pid()));
  }

  private boolean writable(int i) {
    return ask(() -> i, "select txid_current()") != null;
  }

  /** Runs {@code sql} on the node {@code node} names; null if it fails (the wait goes on). */
  private String ask(Supplier<Integer> node, String sql) {
    try {
      return query(node.get(), sql);
    } catch (AssertionError notNow) {
      return null;
    }
  }

  private Connection connect(int i) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", USER);
    props.setProperty("password", PASSWORD);
    props.setProperty("socketTimeout", "5");
    return DriverManager.getConnection(nodeUrl(i), props);
  }

  private int get(int i, String path) {
    try {
      return send(i, "GET", path, null).statusCode();
    } catch (AssertionError unreachable) {
      return -1;
    }
  }

  private HttpResponse<String> send(int i, String method, String path, String body) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(nodes.get(i).restUrl(path)))
            .timeout(REQUEST)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError(method + " " + request.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private <T> T await(Duration within, String what, Supplier<T> probe) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      if (etcd != null && !etcd.isAlive()) {
        throw new AssertionError("etcd exited while waiting for " + what + "\n" + diagnostics());
      }
      T found = probe.get();
      if (found != null) {
        return found;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within " + within + "\n" + diagnostics());
      }
      OsProcesses.pause(Duration.ofMillis(200));
    }
  }

  /** Patroni's view of the cluster and the tail of every log. */
  String diagnostics() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < size(); i++) {
      if (running(i)) {
        try {
          text.append("GET /cluster on node ").append(i).append(": ");
          text.append(send(i, "GET", "/cluster", null).body()).append('\n');
          break;
        } catch (AssertionError unreachable) {
          text.append(unreachable.getMessage()).append('\n');
        }
      }
    }
    nodes.forEach(node -> text.append(OsProcesses.tail(node.log(), 25)).append('\n'));
    return text.append(OsProcesses.tail(dir.resolve("etcd.log"), 10)).toString();
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Gives {@code path} to {@code postgres}, so that Patroni may write there. */
  private static void chown(Path path) throws IOException {
    var users = path.getFileSystem().getUserPrincipalLookupService();
    Files.setOwner(path, users.lookupPrincipalByName("postgres"));
    Files.getFileAttributeView(path, java.nio.file.attribute.PosixFileAttributeView.class)
        .setGroup(users.lookupPrincipalByGroupName("postgres"));
  }

  /** Fails, naming the Debian packages, when a binary the cluster needs is missing. */
  static void checkBinaries() {
    List<String> missing = new ArrayList<>();
    for (String name : List.of("etcd", "patroni")) {
      if (!onPath(name)) {
        missing.add(name + " (not on PATH)");
      }
    }
    if (!Files.isExecutable(Path.of(PG_BIN, "postgres"))) {
      missing.add(PG_BIN + "/postgres");
    }
    if (root() && !onPath("setpriv")) {
      missing.add("setpriv (util-linux), to run Patroni as postgres");
    }
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "a replicated PostgreSQL needs "
              + missing
              + ": install them (Debian/Ubuntu: "
              + PACKAGES
              + ")");
    }
  }

  private static boolean onPath(String name) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(entry -> Files.isExecutable(Path.of(entry, name)));
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(PatroniCluster::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
