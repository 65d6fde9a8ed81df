package dev.fencing.postgres.internal;

import dagger.Binds;
import dagger.Module;
import dagger.Provides;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedQueue;
import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.internal.append.AppendStore;
import dev.fencing.postgres.internal.inplace.InPlaceStore;
import dev.fencing.spi.ScheduleStore;
import io.github.resilience4j.retry.Retry;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Log;
import org.jooq.SQLDialect;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.tools.JooqLogger;

@Module
abstract class PostgresModule {

  static {
    // The jar carries jOOQ relocated, and it is no concern of the user's: its logo, its tips and
    // its warning that PostgreSQL 15 is "older than what dialect POSTGRES supports" (we test on 15
    // and 17) would only alarm them. This sets the threshold of the relocated copy, never of a
    // jOOQ the application uses itself; jOOQ's errors still reach the log.
    JooqLogger.globalThreshold(Log.Level.ERROR);
  }

  /**
   * The job store of the engine the handle runs on ({@link EngineChoice}), the one place that asks
   * which: both share the schema, the queue's enqueues and wake-ups, the outbox, the schedules and
   * the receivers. Each engine's store is built at most once; what uses a store (the queue, the
   * schedules, retention, the admin) is not scoped, so its owner (the front door's gate) takes it
   * once the engine is settled.
   */
  @Provides
  static JobStore store(
      EngineChoice engine, Provider<InPlaceStore> updateInPlace, Provider<AppendStore> appendOnly) {
    return switch (engine.engine()) {
      case UPDATE_IN_PLACE -> updateInPlace.get();
      case APPEND_ONLY -> appendOnly.get();
    };
  }

  /** The operators' view of the same engine's tables. */
  @Provides
  static Admin admin(JobStore store) {
    return store.admin();
  }

  /** The queue, written once against the engine. */
  @Binds
  abstract FencedQueue queue(PostgresQueue queue);

  @Binds
  abstract FencedOutbox outbox(PostgresOutbox outbox);

  @Binds
  abstract ScheduleStore schedules(ScheduleRows schedules);

  @Binds
  abstract ResourceOwnership ownership(PostgresOwnership ownership);

  @Provides
  @Singleton
  static DSLContext dsl(DataSource dataSource, Config config) {
    // The generated classes name no schema; every table is rendered in the schema the user chose.
    Settings settings =
        new Settings()
            .withRenderMapping(
                new RenderMapping()
                    .withSchemata(new MappedSchema().withInput("").withOutput(config.schema())))
            .withExecuteLogging(false);
    return DSL.using(dataSource, SQLDialect.POSTGRES, settings);
  }

  @Provides
  @Singleton
  static Retry retry(Config config) {
    return Transient.retry(config);
  }
}
