package dev.fencing.ha;

import dev.fencing.internal.Validate;
import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.ServerProcess;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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

  /** How long {@link #setFsync} waits for a node before asking its Patroni to reload. */
  private static final Duration RELOAD_AFTER = Duration.ofSeconds(5);

  private final Path dir;
  private final int etcdClientPort = Ports.freePort();
  private final int etcdPeerPort = Ports.freePort();
  private final List<PatroniNode> nodes;
  private final ServerProcess[] patroni;
  private final Set<ProcessHandle> seen = new LinkedHashSet<>();
  private ServerProcess etcd;
  private FollowPrimaryCallback followPrimary;
  private int lastLeader = -1;
  private boolean closed;

  /** Ends the processes if the JVM exits (a surefire timeout, Ctrl-C) before {@link #close()}. */
  private final Thread onExit = new Thread(this::close, "patroni-cluster-close");

  private PatroniCluster(Path dir, int size) {
    this.dir = dir;
    this.nodes =
        IntStream.range(0, size)
            .mapToObj(i -> new PatroniNode("pg" + (i + 1), Ports.freePort(), Ports.freePort(), dir))
            .toList();
    this.patroni = new ServerProcess[size];
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
    Host.requireBinaries();
    Path dir = Path.of("target", "patroni", UUID.randomUUID().toString().substring(0, 8));
    PatroniCluster cluster = new PatroniCluster(dir.toAbsolutePath(), size);
    Runtime.getRuntime().addShutdownHook(cluster.onExit);
    try {
      cluster.startEtcd();
      cluster.followPrimary = FollowPrimaryCallback.install(cluster.dir);
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
    return nodes.get(i).jdbcUrl();
  }

  /** The PostgreSQL port of node {@code i}. */
  public int port(int i) {
    return nodes.get(i).pgPort();
  }

  /** Node {@code i}'s log: Patroni's, PostgreSQL's and its callbacks' output. */
  Path log(int i) {
    return nodes.get(i).log();
  }

  /** The work directory: logs, configurations, data. */
  Path dir() {
    return dir;
  }

  /** The user of both URLs. */
  public String user() {
    return PatroniNode.USER;
  }

  /** The password of both URLs. */
  public String password() {
    return PatroniNode.PASSWORD;
  }

  /**
   * The index of the node whose Patroni says it is the running primary ({@code GET /primary}).
   *
   * @throws AssertionError if none says so now
   */
  public int leader() {
    for (int i = 0; i < size(); i++) {
      if (running(i) && nodes.get(i).status("/primary") == 200) {
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
    return nodes.get(i).query(sql);
  }

  /**
   * Kills the leader's Patroni and then its postmaster with SIGKILL, by pid, and waits until both
   * are gone (the postmaster's children follow it by themselves).
   *
   * @return the index of the node killed
   */
  public int killLeader() {
    int leader = leader();
    killNode(leader);
    lastLeader = leader;
    return leader;
  }

  /**
   * Kills node {@code i}'s Patroni and then its postmaster with SIGKILL, by pid, and waits until
   * both are gone; {@link #startNode} starts it again.
   *
   * @throws IllegalStateException if the node does not run
   */
  public void killNode(int i) {
    if (!running(i)) {
      throw new IllegalStateException("node " + i + " does not run");
    }
    List<ProcessHandle> targets = new ArrayList<>();
    OsProcesses.postmaster(nodes.get(i).dataDir()).ifPresent(targets::add);
    remember(i);
    patroni[i].kill();
    targets.forEach(OsProcesses::kill);
    List<ProcessHandle> left = OsProcesses.awaitGone(targets, Duration.ofSeconds(10));
    if (!left.isEmpty()) {
      throw new AssertionError("pids " + pids(left) + " outlived SIGKILL\n" + diagnostics());
    }
    patroni[i] = null;
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
            if (i != old && running(i) && nodes.get(i).status("/primary") == 200 && writable(i)) {
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
    HttpResponse<String> answer =
        nodes.get(leader).send("POST", "/switchover", body, Duration.ofSeconds(60));
    if (answer.statusCode() != 200) {
      throw new AssertionError("switchover refused: " + answer.statusCode() + " " + answer.body());
    }
    lastLeader = leader;
    return awaitNewLeader(Duration.ofSeconds(60));
  }

  /**
   * Has every node's {@code on_role_change} callback point {@code bouncer} at its node when that
   * node becomes the primary, until the registration is closed (see {@link FollowPrimaryCallback}).
   * The cluster does not point it anywhere now.
   */
  FollowPrimaryCallback.Registration repointOnPromotion(PgBouncerProcess bouncer) {
    return followPrimary.register(bouncer);
  }

  /**
   * Runs node {@code i}'s {@code on_role_change} callback by hand, as Patroni would when the node's
   * role becomes {@code role} (the node's role does not change), and returns what it printed.
   */
  String runRoleChangeCallback(int i, String role) {
    return followPrimary.run(nodes.get(i), role);
  }

  /**
   * Turns Patroni's synchronous mode on or off and waits until the leader follows: a synchronous
   * standby attached ({@link #awaitSynchronousStandby}), or none named ({@link
   * #awaitAsynchronous}).
   *
   * @return the synchronous standby's name with {@code on}, else empty
   */
  public String switchSynchronousMode(boolean on, Duration within) {
    setSynchronousMode(on);
    if (on) {
      return awaitSynchronousStandby(within);
    }
    awaitAsynchronous(within);
    return "";
  }

  /**
   * Turns Patroni's synchronous mode on or off ({@code PATCH /config}); with it on, Patroni names a
   * replica in {@code synchronous_standby_names}. See {@link #awaitSynchronousStandby} and {@link
   * #awaitAsynchronous}.
   */
  public void setSynchronousMode(boolean on) {
    patchConfig("{\"synchronous_mode\": " + on + "}");
  }

  /**
   * Sets Patroni's {@code maximum_lag_on_failover} ({@code PATCH /config}): a replica further than
   * {@code bytes} behind the leader's last known position is not promoted. The fixture starts with
   * Patroni's default, 1 MiB.
   */
  public void setMaximumLagOnFailover(long bytes) {
    patchConfig("{\"maximum_lag_on_failover\": " + bytes + "}");
  }

  /**
   * Turns PostgreSQL's {@code fsync} on or off on every node ({@code PATCH /config}; a reload
   * applies it) and waits until every running node shows it. The fixture starts with it off.
   */
  public void setFsync(boolean on, Duration within) {
    String value = on ? "on" : "off";
    patchConfig("{\"postgresql\": {\"parameters\": {\"fsync\": \"" + value + "\"}}}");
    long[] nextReload = {System.nanoTime() + RELOAD_AFTER.toNanos()};
    await(
        within,
        "fsync = " + value + " on every running node",
        () -> {
          List<Integer> behind =
              IntStream.range(0, size())
                  .filter(i -> running(i) && !value.equals(ask(() -> i, "show fsync")))
                  .boxed()
                  .toList();
          if (behind.isEmpty()) {
            return value;
          }
          // Patroni 3.0.2 takes a change of the configuration without applying it when its
          // PostgreSQL is not running yet (a replica finishing its bootstrap); a reload of that
          // Patroni compares with PostgreSQL's own settings and applies it
          if (System.nanoTime() > nextReload[0]) {
            for (int i : behind) {
              try {
                nodes.get(i).send("POST", "/reload", null);
              } catch (AssertionError unreachable) {
                // the wait goes on and reports it if it lasts
              }
            }
            nextReload[0] = System.nanoTime() + RELOAD_AFTER.toNanos();
          }
          return null;
        });
  }

  private void patchConfig(String json) {
    HttpResponse<String> answer = nodes.get(leader()).send("PATCH", "/config", json);
    if (answer.statusCode() != 200) {
      throw new AssertionError(
          "PATCH /config " + json + " refused: " + answer.statusCode() + " " + answer.body());
    }
  }

  /**
   * Waits until the leader has a standby whose {@code pg_stat_replication.sync_state} is {@code
   * sync} and whose Patroni says so too ({@code GET /sync}: Patroni's key in etcd, which a
   * switchover checks its candidate against, follows PostgreSQL by a loop), and returns its
   * application name (the node's name).
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
          if (name == null || name.isEmpty()) {
            return null;
          }
          for (int i = 0; i < size(); i++) {
            if (nodes.get(i).name().equals(name)) {
              return running(i) && nodes.get(i).status("/sync") == 200 ? name : null;
            }
          }
          return null;
        });
  }

  /** Waits until the leader names no synchronous standby ({@code synchronous_standby_names}). */
  public void awaitAsynchronous(Duration within) {
    await(
        within,
        "an empty synchronous_standby_names",
        () -> "".equals(ask(this::leader, "show synchronous_standby_names")) ? true : null);
  }

  /** Node {@code i}'s Patroni name, which is also its {@code application_name} as a standby. */
  public String nodeName(int i) {
    return nodes.get(i).name();
  }

  /** Starts (again) the Patroni of node {@code i}; a killed leader rejoins as a replica. */
  public void startNode(int i) {
    PatroniNode node = nodes.get(i);
    if (running(i)) {
      throw new IllegalStateException("node " + i + " runs already");
    }
    try {
      Files.writeString(
          node.config(),
          node.yaml(
              "fencing-" + dir.getFileName(),
              etcdClientPort,
              Host.PG_BIN,
              followPrimary.command(node)));
      List<String> command = new ArrayList<>();
      if (Host.root()) {
        command.addAll(Host.AS_POSTGRES);
        Host.chown(dir);
      }
      command.addAll(List.of("patroni", node.config().toString()));
      patroni[i] =
          ServerProcess.builder(command)
              .name("Patroni of node " + i)
              .directory(dir)
              .log(node.log())
              .withoutEnvironment(name -> name.startsWith("PG"))
              .environment("HOME", dir.toString())
              .start();
      seen.add(patroni[i].handle());
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
            if (running(i) && nodes.get(i).status("/primary") == 200 && writable(i)) {
              leader = i;
            }
          }
          if (leader == null) {
            return null;
          }
          int lead = leader;
          String streaming =
              ask(
                  () -> lead,
                  "select coalesce(string_agg(application_name, ',' order by application_name),"
                      + " '') from pg_stat_replication where state = 'streaming'");
          String replicas =
              IntStream.range(0, size())
                  .filter(i -> i != lead && running(i))
                  .mapToObj(i -> nodes.get(i).name())
                  .sorted()
                  .collect(Collectors.joining(","));
          return replicas.equals(streaming) ? leader : null;
        });
  }

  /**
   * Starts every node that does not run (killed ones rejoin as replicas) and waits until the
   * cluster is healthy (see {@link #awaitHealthy}): how a test that shares the cluster begins.
   */
  public void heal(Duration within) {
    for (int i = 0; i < size(); i++) {
      if (!running(i)) {
        startNode(i);
      }
    }
    awaitHealthy(within);
  }

  /**
   * How a test that kills leaders begins: {@link #heal}s the cluster, lets Patroni promote a
   * replica however far behind ({@code maximum_lag_on_failover} 256 MiB: the lag a kill leaves must
   * not keep the replica from being promoted), and turns synchronous mode on or off ({@link
   * #switchSynchronousMode}).
   */
  public void readyForKills(boolean synchronous, Duration within) {
    heal(within);
    setMaximumLagOnFailover(256L << 20);
    switchSynchronousMode(synchronous, within);
  }

  /**
   * Waits until every streaming replica has replayed all the leader has written so far, so that a
   * failover from now on loses nothing written before.
   */
  public void awaitReplicated(Duration within) {
    int leader = leader();
    String lsn = query(leader, "select pg_current_wal_lsn()");
    String sql =
        "select count(*) from pg_stat_replication where state = 'streaming' and replay_lsn < '"
            + lsn
            + "'::pg_lsn";
    await(
        within,
        "every replica to replay up to " + lsn,
        () -> "0".equals(ask(() -> leader, sql)) ? lsn : null);
  }

  /**
   * Every process this cluster started or saw under Patroni: etcd, Patroni, the postmasters and
   * their children (some long gone).
   */
  public Set<ProcessHandle> processes() {
    for (int i = 0; i < size(); i++) {
      if (running(i)) {
        remember(i);
      }
    }
    return Set.copyOf(seen);
  }

  /**
   * Kills every Patroni and postmaster with SIGKILL (the data is deleted, so no clean shutdown is
   * owed), then etcd; waits until every process it saw is gone; deletes the data directories and
   * keeps the logs.
   *
   * @throws AssertionError if a process outlives SIGKILL for 10 s
   */
  @Override
  public synchronized void close() {
    OsProcesses.dropShutdownHook(onExit);
    if (closed) {
      return;
    }
    closed = true;
    processes();
    for (int i = 0; i < size(); i++) {
      if (patroni[i] != null) {
        patroni[i].kill();
      }
      OsProcesses.postmaster(nodes.get(i).dataDir()).ifPresent(OsProcesses::kill);
    }
    // the postmasters' children end by themselves when their postmaster dies
    List<ProcessHandle> left =
        OsProcesses.awaitGone(
            seen.stream().filter(p -> etcd == null || p.pid() != etcd.pid()).toList(),
            Duration.ofSeconds(5));
    left.forEach(OsProcesses::kill);
    if (etcd != null) {
      etcd.kill();
    }
    List<ProcessHandle> stuck = OsProcesses.awaitGone(seen, Duration.ofSeconds(10));
    if (!stuck.isEmpty()) {
      throw new AssertionError("pids " + pids(stuck) + " outlived SIGKILL; see " + dir);
    }
    Stream.concat(nodes.stream().map(PatroniNode::dataDir), Stream.of(dir.resolve("etcd")))
        .forEach(Host::deleteTree);
  }

  @Override
  public String toString() {
    return "PatroniCluster[" + dir + ", " + jdbcUrl() + "]";
  }

  private void startEtcd() {
    String client = "http://127.0.0.1:" + etcdClientPort;
    String peer = "http://127.0.0.1:" + etcdPeerPort;
    etcd =
        ServerProcess.builder(
                "etcd",
                "--name=e1",
                "--data-dir=" + dir.resolve("etcd"),
                "--listen-client-urls=" + client,
                "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer,
                "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=e1=" + peer,
                "--initial-cluster-token=" + dir.getFileName())
            .log(dir.resolve("etcd.log"))
            .readyWhenListening(etcdClientPort)
            .start();
    seen.add(etcd.handle());
  }

  private boolean running(int i) {
    return patroni[i] != null && patroni[i].isAlive();
  }

  /**
   * Remembers the processes under node {@code i}: Patroni's children, and its postmaster with its
   * children (Patroni detaches the postmaster, so it is no descendant of Patroni's).
   */
  private void remember(int i) {
    patroni[i].handle().descendants().forEach(seen::add);
    OsProcesses.postmaster(nodes.get(i).dataDir())
        .ifPresent(
            postmaster -> {
              seen.add(postmaster);
              postmaster.descendants().forEach(seen::add);
            });
  }

  private static List<Long> pids(List<ProcessHandle> processes) {
    return processes.stream().map(ProcessHandle::pid).toList();
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
          text.append(nodes.get(i).send("GET", "/cluster", null).body()).append('\n');
          break;
        } catch (AssertionError unreachable) {
          text.append(unreachable.getMessage()).append('\n');
        }
      }
    }
    nodes.forEach(node -> text.append(ServerProcess.tail(node.log(), 25)).append('\n'));
    return text.append(ServerProcess.tail(dir.resolve("etcd.log"), 10)).toString();
  }
}
