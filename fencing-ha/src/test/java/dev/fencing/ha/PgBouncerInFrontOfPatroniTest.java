package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PgBouncer in front of the Patroni leader, where clients log in with a password ({@code md5}) and
 * PgBouncer logs in to PostgreSQL with the one in its user list: the queue claims through it, in
 * the leader's failover generation.
 */
@ExtendWith(SharedPatroniCluster.class)
class PgBouncerInFrontOfPatroniTest {

  @Test
  void theQueueWorksThroughPgBouncerInFrontOfTheLeader(PatroniCluster cluster) throws Exception {
    cluster.heal(Duration.ofSeconds(60));
    int leader = cluster.leader();
    PostgresFixture.Database direct =
        new PostgresFixture.Database(
            cluster.nodeUrl(leader), cluster.user(), cluster.password(), "patroni-leader");
    try (PgBouncerProcess bouncer = PgBouncerProcess.start(direct, 2)) {
      DataSource through = bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS).dataSource();
      try (Connection c = through.getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select inet_server_port()")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(cluster.port(leader));
      }
      FencedQueue queue =
          PostgresFencing.builder(through)
              .notifications(false)
              .schema(direct.freshSchema("bouncer"))
              .build()
              .queue();
      long id = queue.enqueue("q", "{}");
      Job job = queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow();
      queue.complete(job.lease(), "{}");

      assertThat(job.id()).isEqualTo(id);
      assertThat(job.epoch().value() >>> 32).isEqualTo(cluster.timeline() - 1);
    }
  }
}
