package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.QueueLimits;
import dev.fencing.ResourceOwnership;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.fault.FlakyProxy;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A PostgreSQL this test starts itself is stopped (or its one connection dropped), and then every
 * method of every interface the front door hands out (the queue, a receiver, ownership, the outbox,
 * the schedules, maintenance, admin) is called with valid arguments: each must throw {@link
 * StoreUnavailableException} with the driver's failure as cause, or do what its javadoc says it
 * does without a store, and never let a driver or jOOQ type out. The methods are found by
 * reflection, so a method added later is called too.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoppedDatabaseTest {

  /**
   * The methods documented not to fail when the store is unreachable, with what they return. Every
   * other method must throw StoreUnavailableException.
   */
  private static final Map<String, Predicate<Object>> DOCUMENTED_RETURNS =
      Map.of(
          // a hint: signals can be lost; it waits its timeout and says so
          "FencedQueue.awaitWork", Boolean.FALSE::equals,
          // whether the queue signals at all: configuration, not the store
          "FencedQueue.signalsWork", Boolean.TRUE::equals,
          // a renewal that cannot reach the store reports the ownership lost as UNREACHABLE
          "ResourceOwnership.renew",
              r -> ((OwnershipRenewal.Lost) r).why() == OwnershipRenewal.Why.UNREACHABLE,
          // does nothing: the data source is the caller's
          "ResourceOwnership.close", r -> r == null,
          // the pace the settings name, not the store
          "Maintenance.upkeepEvery", r -> ((java.util.Optional<?>) r).isPresent(),
          // the handle's setting, not the store
          "PostgresAdmin.schema", r -> r instanceof String,
          // the handle's codec, a setting too
          "FencedQueue.codec", r -> r instanceof dev.fencing.JobCodec);

  /** What the translator says of a failure retried as the fixture's handle is configured. */
  private static final String RETRIED = "(transient failures retried 1 times)";

  private static final java.util.concurrent.atomic.AtomicLong INSTANTS =
      new java.util.concurrent.atomic.AtomicLong();

  /** One server for both cases (starting one takes seconds): dropped first, then stopped. */
  private static @org.jspecify.annotations.Nullable EmbeddedPostgres pg;

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPostgres.builder().start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  @Order(1)
  void aDroppedConnectionGivesTheDocumentedExceptionFromEveryMethod() throws Exception {
    try (FlakyProxy proxy =
            FlakyProxy.inFrontOf(
                new PostgresFixture.Database(
                    pg.getJdbcUrl("postgres", "postgres"), "postgres", "", "embedded"));
        OneConnection one = new OneConnection(proxy.database().dataSource(), true)) {
      Fixture fixture = Fixture.prepare(one.dataSource(), "dropped");
      // the one connection every call gets breaks, as it would when the server or a network
      // device in between drops it; the server itself keeps running
      proxy.dropAllConnections();

      List<String> called = fixture.callEverything();

      assertThat(called).contains("ResourceOwnership.acquire", "FencedQueue.complete");
    }
  }

  @Test
  @Order(2)
  void aStoppedDatabaseGivesTheDocumentedExceptionFromEveryMethod() throws Exception {
    Fixture fixture = Fixture.prepare(pg.getPostgresDatabase(), "stopped");
    pg.close();
    pg = null;

    List<String> called = fixture.callEverything();

    assertThat(called)
        .contains(
            "FencedQueue.claim",
            "FencedReceiver.deliver",
            "FencedReceiver.fence",
            "FencedOutbox.relay",
            "ScheduleStore.advance",
            "Maintenance.runRound",
            "PostgresAdmin.purge");
  }

  /** What the calls need: the handle's parts, and a real lease and ownership taken before. */
  private record Fixture(
      PostgresFencing fencing, Lease lease, Ownership ownership, Map<Class<?>, Object> parts) {

    static Fixture prepare(DataSource dataSource, String schema) {
      PostgresFencing fencing =
          PostgresFencing.builder(dataSource)
              .schema(schema)
              .transientRetries(1)
              .retryWait(Duration.ofMillis(10))
              .build();
      FencedQueue queue = fencing.queue();
      queue.enqueue("true", "true");
      Lease lease = queue.claim("true", "true", Duration.ofMinutes(5)).orElseThrow().lease();
      Ownership ownership =
          ((Acquisition.Acquired)
                  fencing.ownership().acquire("true", "true", Duration.ofMinutes(5)))
              .ownership();
      Map<Class<?>, Object> parts =
          Map.of(
              FencedQueue.class, queue,
              FencedReceiver.class, fencing.receiver("ledger"),
              ResourceOwnership.class, fencing.ownership(),
              FencedOutbox.class, fencing.outbox(),
              Maintenance.class, fencing.maintenance().build(),
              PostgresAdmin.class, fencing.admin(),
              ScheduleStore.class, fencing.schedules());
      return new Fixture(fencing, lease, ownership, parts);
    }

    /** Calls every method of every part; returns the names of those called. */
    List<String> callEverything() throws Exception {
      List<String> called = new ArrayList<>();
      for (Map.Entry<Class<?>, Object> part : parts.entrySet()) {
        Method[] methods =
            part.getKey().isInterface()
                ? part.getKey().getMethods()
                : part.getKey().getDeclaredMethods();
        for (Method method : methods) {
          if (Modifier.isStatic(method.getModifiers())
              || !Modifier.isPublic(method.getModifiers())) {
            continue;
          }
          String name = part.getKey().getSimpleName() + "." + method.getName();
          Object[] args =
              Arrays.stream(method.getGenericParameterTypes())
                  .map(type -> argument(name, type))
                  .toArray();
          Object returned = null;
          Throwable thrown = null;
          try {
            returned = method.invoke(part.getValue(), args);
          } catch (InvocationTargetException e) {
            thrown = e.getCause();
          }
          Predicate<Object> documented = DOCUMENTED_RETURNS.get(name);
          if (documented != null) {
            assertThat(thrown).as(name).isNull();
            assertThat(documented.test(returned)).as(name + " returned " + returned).isTrue();
          } else {
            assertThat(thrown)
                .as(name + " " + Arrays.toString(args))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("schema " + fencing.schema())
                // the translator's words, kept by whatever says more of the call
                .hasMessageContaining(RETRIED)
                .cause()
                .isNotNull();
          }
          called.add(name);
        }
      }
      assertThat(catchThrowable(fencing::admin))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(RETRIED);
      return called;
    }

    /** A valid argument of {@code type}: "true" is a plain identifier, a key and JSON at once. */
    private Object argument(String method, Type type) {
      // a typed call's payload: with JobType.raw it is JSON text, as every other payload here
      if (type instanceof java.lang.reflect.TypeVariable<?>
          || type instanceof java.lang.reflect.WildcardType) {
        return "true";
      }
      if (type instanceof ParameterizedType generic
          && generic.getRawType() == dev.fencing.JobType.class) {
        return dev.fencing.JobType.raw("true");
      }
      if (type instanceof ParameterizedType generic) {
        Type element = generic.getActualTypeArguments()[0];
        return List.of(argument(method, element));
      }
      Class<?> raw = (Class<?>) type;
      if (raw == String.class) {
        return "true";
      }
      if (raw == Duration.class) {
        return method.equals("FencedQueue.awaitWork")
            ? Duration.ofMillis(50)
            : Duration.ofMinutes(1);
      }
      if (raw == Instant.class) {
        // each later than the one before: a slot's end after its start
        return Instant.ofEpochSecond(1_600_000_000L + INSTANTS.incrementAndGet());
      }
      if (raw == int.class) {
        return 1;
      }
      if (raw == boolean.class) {
        return true;
      }
      if (raw == long.class) {
        return lease.jobId();
      }
      if (raw == Lease.class) {
        return lease;
      }
      if (raw == Ownership.class) {
        return ownership;
      }
      if (raw == Epoch.class) {
        return lease.epoch();
      }
      if (raw == JobOptions.class) {
        return JobOptions.after(Duration.ofMinutes(1));
      }
      if (raw == KeyedJob.class) {
        return new KeyedJob("true", "true", JobOptions.ofPriority(1));
      }
      if (raw == JobOptions.class) {
        return JobOptions.ofPriority(1).withDelay(Duration.ofSeconds(1));
      }
      if (raw == JobSearch.class) {
        return JobSearch.all(10);
      }
      if (raw == QueueLimits.class) {
        return QueueLimits.maxRunning(1);
      }
      if (raw == OutboxMessage.class) {
        return new OutboxMessage("true", "true", "true");
      }
      if (raw == FencedQueue.Completion.class) {
        return new FencedQueue.Completion(lease, "true");
      }
      if (raw == FencedOutbox.Sender.class) {
        return (FencedOutbox.Sender)
            envelope -> new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
      }
      if (raw == FencedReceiver.class) {
        return parts.get(FencedReceiver.class);
      }
      throw new AssertionError(method + ": no valid argument of " + type + " known to this test");
    }
  }
}
