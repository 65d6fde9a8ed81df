package dev.fencing.postgres.internal;

import dagger.Binds;
import dagger.Module;
import dagger.Provides;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedQueue;
import dev.fencing.ResourceOwnership;
import dev.fencing.ScheduleStore;
import io.github.resilience4j.retry.Retry;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

@Module
abstract class PostgresModule {

  /** The engine the configuration names: both share the schema, the outbox and the receivers. */
  @Provides
  @Singleton
  static FencedQueue queue(
      Config config, Provider<JooqQueue> updateInPlace, Provider<AppendQueue> appendOnly) {
    return config.appendOnly() ? appendOnly.get() : updateInPlace.get();
  }

  @Binds
  abstract FencedOutbox outbox(JooqOutbox outbox);

  @Binds
  abstract ScheduleStore schedules(ScheduleRows schedules);

  @Binds
  abstract ResourceOwnership ownership(JooqOwnership ownership);

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
