package dev.fencing.postgres.internal;

import dagger.BindsInstance;
import dagger.Component;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedQueue;
import dev.fencing.ResourceOwnership;
import dev.fencing.spi.ScheduleStore;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/** The PostgreSQL backend's object graph, wired at compile time. */
@Singleton
@Component(modules = PostgresModule.class)
public interface PostgresComponent {

  /** The queue; a new one at each call (see {@link EngineChoice}). */
  FencedQueue queue();

  /** Resource ownership, in the same schema as the queue. */
  ResourceOwnership ownership();

  /** Recurring schedules' definitions and marks, in the same schema as the queue. */
  ScheduleStore schedules();

  /** The outbox relay, in the same schema as the queue. */
  FencedOutbox outbox();

  /** Inspection and operator changes, in the same schema as the queue. */
  Admin admin();

  /** Removal of old finished jobs and storage upkeep, in the same schema as the queue. */
  Retention retention();

  /** The receivers, in the same schema as the queue. */
  NamedReceivers receivers();

  /** Asks the server about synchronous standbys. */
  ReplicationProbe replication();

  /** The wake-ups' listening connection and thread, closed with the handle. */
  Listener listener();

  /** Which engine the graph's job store is of. */
  EngineChoice engineChoice();

  /** Installs the schema. */
  SchemaSetup schemaSetup();

  /** Creates the graph. */
  @Component.Factory
  interface Factory {
    PostgresComponent create(
        @BindsInstance DataSource dataSource,
        @BindsInstance @Listening DataSource listening,
        @BindsInstance Config config);
  }

  /**
   * Returns a new graph for {@code dataSource} and {@code config}, whose wake-ups listen on a
   * connection from {@code listening}.
   */
  static PostgresComponent create(DataSource dataSource, DataSource listening, Config config) {
    return DaggerPostgresComponent.factory().create(dataSource, listening, config);
  }
}
