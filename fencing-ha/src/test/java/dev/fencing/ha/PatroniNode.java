package dev.fencing.ha;

import java.nio.file.Path;

/**
 * One PostgreSQL node under Patroni: its name, ports and files.
 *
 * @param name the Patroni member name, also the {@code application_name} it streams under
 * @param pgPort PostgreSQL's port on 127.0.0.1
 * @param restPort Patroni's REST API port on 127.0.0.1
 * @param dir the cluster's work directory, which holds this node's files
 */
record PatroniNode(String name, int pgPort, int restPort, Path dir) {

  Path dataDir() {
    return dir.resolve(name);
  }

  Path config() {
    return dir.resolve(name + ".yml");
  }

  Path log() {
    return dir.resolve(name + ".log");
  }

  String restUrl(String path) {
    return "http://127.0.0.1:" + restPort + path;
  }

  /**
   * Patroni's configuration: fast timings (a leader key of 10 s, a loop of 1 s), settings small
   * enough for a test machine, {@code fsync} off (a test survives a killed process, not a lost
   * machine), and {@code pg_rewind} so that a killed leader rejoins as a replica.
   */
  String yaml(String scope, int etcdClientPort, String binDir) {
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
            dir.resolve(name + ".pgpass").toAbsolutePath());
  }
}
