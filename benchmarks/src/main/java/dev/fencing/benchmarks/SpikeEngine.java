package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.SQLException;

/** One engine's hot path in {@link EngineSpike}: enqueue, then claim a batch and commit it. */
interface SpikeEngine {

  /** The queue every engine of the spike works on. */
  String QUEUE = "spike";

  String name();

  void install(PostgresFixture.Database db, HikariDataSource pool) throws SQLException;

  void enqueue(int count) throws SQLException;

  /** Claims up to {@code n} jobs and commits them; returns how many. */
  int claimAndCommit(String owner, int n) throws SQLException;

  /**
   * After the run: what is wrong with the store, given that {@code committed} jobs were reported
   * committed (a job claimed twice, lost or committed twice); empty when nothing.
   */
  default String verify(long committed) throws SQLException {
    return "";
  }
}
