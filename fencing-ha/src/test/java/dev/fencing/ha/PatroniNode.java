package dev.fencing.ha;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

/**
 * One PostgreSQL node under Patroni: its name, ports and files.
 *
 * @param name the Patroni member name, also the {@code application_name} it streams under
 * @param pgPort PostgreSQL's port on 127.0.0.1
 * @param restPort Patroni's REST API port on 127.0.0.1
 * @param dir the cluster's work directory, which holds this node's files
 */
record PatroniNode(String name, int pgPort, int restPort, Path dir) {

  static final String USER = "postgres";
  static final String PASSWORD = "postgres";
  private static final Duration REQUEST = Duration.ofSeconds(3);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(REQUEST).build();

  /** A URL of this node alone, primary or not. */
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?connectTimeout=2";
  }

  /**
   * Runs {@code sql} here and returns the first column of its one row as text.
   *
   * @throws AssertionError if it fails or returns no row
   */
  String query(String sql) {
    Properties props = new Properties();
    props.setProperty("user", USER);
    props.setProperty("password", PASSWORD);
    props.setProperty("socketTimeout", "5");
    try (Connection c = DriverManager.getConnection(jdbcUrl(), props);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new AssertionError("no row from " + name + " for " + sql);
      }
      return rs.getString(1);
    } catch (SQLException e) {
      throw new AssertionError("on " + name + " (" + jdbcUrl() + "): " + sql + ": " + e, e);
    }
  }

  /** The status code of {@code GET path} on Patroni's REST API, or -1 if it does not answer. */
  int status(String path) {
    try {
      return send("GET", path, null).statusCode();
    } catch (AssertionError unreachable) {
      return -1;
    }
  }

  /**
   * Sends a request to Patroni's REST API.
   *
   * @param body JSON, or null for none
   * @throws AssertionError if Patroni does not answer
   */
  HttpResponse<String> send(String method, String path, String body) {
    return send(method, path, body, REQUEST);
  }

  /**
   * Sends a request to Patroni's REST API that may take up to {@code timeout} to answer: {@code
   * POST /switchover} answers once the switchover is done (3.1 s once, on a loaded machine).
   *
   * @param body JSON, or null for none
   * @throws AssertionError if Patroni does not answer in time
   */
  HttpResponse<String> send(String method, String path, String body, Duration timeout) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
            .timeout(timeout)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError(method + " " + request.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  Path dataDir() {
    return dir.resolve(name);
  }

  Path config() {
    return dir.resolve(name + ".yml");
  }

  Path log() {
    return dir.resolve(name + ".log");
  }

  /**
   * Patroni's configuration: fast timings (a leader key of 10 s, a loop of 1 s), settings small
   * enough for a test machine, {@code fsync} off (a test survives a killed process, not a lost
   * machine), {@code pg_rewind} so that a killed leader rejoins as a replica, and {@code
   * onRoleChange} as Patroni's {@code on_role_change} callback (Patroni appends {@code <action>
   * <role> <scope>}).
   */
  String yaml(String scope, int etcdClientPort, String binDir, String onRoleChange) {
    String address = "127.0.0.1:";
    return """
        scope: %s
        name: %s
        restapi: {listen: '%s%d', connect_address: '%s%d'}
        etcd3: {hosts: '127.0.0.1:%d'}
        bootstrap:
          dcs:
            ttl: 10
            loop_wait: 1
            retry_timeout: 5
            maximum_lag_on_failover: 1048576
            synchronous_mode: false
            postgresql:
              use_pg_rewind: true
              parameters:
                wal_level: replica
                hot_standby: 'on'
                wal_log_hints: 'on'
                max_wal_senders: 5
                max_replication_slots: 5
                max_connections: 60
                wal_keep_size: 64MB
                shared_buffers: 16MB
                fsync: 'off'
                unix_socket_directories: ''
          initdb: [{encoding: UTF8}, {locale: C}]
          pg_hba:
          - host replication replicator 127.0.0.1/32 md5
          - host all all 127.0.0.1/32 md5
        postgresql:
          listen: '%s%d'
          connect_address: '%s%d'
          data_dir: '%s'
          bin_dir: '%s'
          pgpass: '%s'
          callbacks: {on_role_change: '%s'}
          authentication:
            replication: {username: replicator, password: rep}
            superuser: {username: postgres, password: postgres}
            rewind: {username: postgres, password: postgres}
        """
        .formatted(
            scope,
            name,
            address,
            restPort,
            address,
            restPort,
            etcdClientPort,
            address,
            pgPort,
            address,
            pgPort,
            dataDir().toAbsolutePath(),
            binDir,
            dir.resolve(name + ".pgpass").toAbsolutePath(),
            onRoleChange);
  }
}
