package dev.fencing.postgres.internal;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the wake-up signals of one built queue and hands them to the threads waiting in {@link
 * #await}.
 *
 * <p>One connection, taken from the data source on the first wait and held while anyone waits, is
 * LISTENing on the schema's channel; one daemon thread reads its notifications and counts them per
 * queue. A waiter sleeps until its queue's count moves. When the connection fails, the thread
 * reconnects with a capped backoff and then wakes every waiter, since notifications may have been
 * lost meanwhile; until then waiters end at their timeouts, so callers fall back to polling.
 *
 * <p>The connection goes back to the data source (after UNLISTEN) and the thread ends when nobody
 * has waited for the configured linger; the next wait starts them again. So a queue that is no
 * longer used holds no connection and no thread, without a close. {@link #close} does the same at
 * once and for good, so that an application can give the connection back before it closes its pool.
 */
@Singleton
public final class Listener {

  private static final Logger LOG = LoggerFactory.getLogger(Listener.class);

  /** How long one read of notifications blocks: bounds how late the thread notices the linger. */
  private static final int READ_MILLIS = 250;

  /** How long the connection may be quiet before it is checked: finds a silently dead socket. */
  private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** How long that check may take. */
  private static final int CHECK_SECONDS = 2;

  /** How long {@link #close} waits for the reader: a read, a check, an UNLISTEN and some slack. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private static final long MIN_BACKOFF_MILLIS = 50;
  private static final long MAX_BACKOFF_MILLIS = 5_000;

  private final DataSource dataSource;
  private final String channel;
  private final long lingerNanos;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition moved = lock.newCondition();
  // guarded by lock: signals heard per queue, and signals for everyone (after a reconnect)
  private final Map<String, Long> heard = new HashMap<>();
  private long everyone;
  private int waiting;
  private long lastWaitEnded = System.nanoTime();
  private @Nullable Thread reader;
  private long connects;
  private boolean closed;
  private final Condition closing = lock.newCondition();

  /** What each thread saw when its last wait per queue ended, so no signal falls between waits. */
  private final ThreadLocal<Map<String, Long>> seen = ThreadLocal.withInitial(HashMap::new);

  @Inject
  Listener(@Listening DataSource dataSource, Config config) {
    this.dataSource = dataSource;
    this.channel = Notifier.channel(config.schema());
    this.lingerNanos = config.listenerLinger().toNanos();
  }

  /**
   * Waits until a signal for {@code queue} arrives, or one for everyone, or {@code timeout} passes.
   * A signal that arrived since this thread's previous wait on {@code queue} ends it at once. After
   * {@link #close} nothing listens: the wait sleeps its timeout, so callers poll.
   *
   * @return whether a signal ended the wait
   */
  boolean await(String queue, Duration timeout) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      waiting++;
      try {
        startReader();
        Map<String, Long> mine = seen.get();
        long now = count(queue);
        Long before = mine.get(queue);
        if (before != null && before != now) {
          mine.put(queue, now);
          return true;
        }
        long left = timeout.toNanos();
        while (count(queue) == now && left > 0) {
          left = moved.awaitNanos(left);
        }
        long after = count(queue);
        mine.put(queue, after);
        return after != now;
      } finally {
        waiting--;
        lastWaitEnded = System.nanoTime();
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many times the reader has begun listening; for tests. */
  long connects() {
    lock.lock();
    try {
      return connects;
    } finally {
      lock.unlock();
    }
  }

  // both counters only grow, so their sum moves whenever either does
  private long count(String queue) {
    return heard.getOrDefault(queue, 0L) + everyone;
  }

  private void startReader() {
    if (reader == null && !closed) {
      reader =
          Thread.ofPlatform().daemon().name("fencing-wakeups-" + channel).unstarted(this::read);
      reader.start();
    }
  }

  /**
   * Stops listening for good: ends the reader thread, which sends UNLISTEN and gives its connection
   * back to the data source, and waits for it (up to 10 s: a read in progress ends within 250 ms, a
   * check within 2 s). Later waits sleep their timeouts. Idempotent.
   */
  public void close() {
    Thread ending;
    lock.lock();
    try {
      closed = true;
      ending = reader;
      closing.signalAll();
    } finally {
      lock.unlock();
    }
    if (ending == null || ending == Thread.currentThread()) {
      return;
    }
    try {
      if (!ending.join(CLOSE_WAIT)) {
        LOG.warn(
            "the listening connection on {} was not given back within {}", channel, CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Ends the reader if nobody has waited for the linger, or at {@link #close}; under the lock, so a
   * waiter restarts it.
   */
  private boolean lingeredOut() {
    lock.lock();
    try {
      if (closed || waiting == 0 && System.nanoTime() - lastWaitEnded >= lingerNanos) {
        reader = null;
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  private void signal(@Nullable String queue) {
    lock.lock();
    try {
      if (queue == null) {
        everyone++;
        connects++;
      } else {
        heard.merge(queue, 1L, Long::sum);
      }
      moved.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void read() {
    Session session = null;
    long backoff = MIN_BACKOFF_MILLIS;
    long lastHeard = System.nanoTime();
    try {
      while (!lingeredOut()) {
        if (session == null) {
          try {
            session = Session.open(dataSource, channel);
          } catch (SQLException | RuntimeException e) {
            LOG.debug("cannot listen on {} yet", channel, e);
            pause(backoff);
            backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            continue;
          }
          backoff = MIN_BACKOFF_MILLIS;
          lastHeard = System.nanoTime();
          // whatever was notified while nobody listened is lost: let every waiter claim again
          signal(null);
        }
        try {
          PGNotification[] notifications = session.pg.getNotifications(READ_MILLIS);
          if (notifications != null && notifications.length > 0) {
            lastHeard = System.nanoTime();
            for (PGNotification n : notifications) {
              if (channel.equals(n.getName())) {
                signal(n.getParameter());
              }
            }
          } else if (System.nanoTime() - lastHeard > CHECK_NANOS) {
            // a socket whose peer vanished without a word reads as silence: ask it, and whether
            // it still reaches a primary
            Session.requirePrimary(session.connection);
            lastHeard = System.nanoTime();
          }
        } catch (SQLException | RuntimeException e) {
          LOG.debug("lost the listening connection on {}", channel, e);
          if (Transient.hasState(e, Transient.READ_ONLY)) {
            session.abort();
          }
          session.close();
          session = null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.lock();
      try {
        if (reader == Thread.currentThread()) {
          reader = null; // ended otherwise than by the linger: the next wait starts another
        }
      } finally {
        lock.unlock();
      }
      if (session != null) {
        session.close();
      }
    }
  }

  /** Sleeps {@code millis} between two attempts to listen, or until {@link #close}. */
  private void pause(long millis) throws InterruptedException {
    lock.lock();
    try {
      long left = TimeUnit.MILLISECONDS.toNanos(millis);
      while (!closed && left > 0) {
        left = closing.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The listening connection, in autocommit mode so that LISTEN takes effect at once. */
  private record Session(
      Connection connection, PGConnection pg, boolean autoCommit, String channel) {

    static Session open(DataSource dataSource, String channel) throws SQLException {
      Connection c = dataSource.getConnection();
      try {
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
          c.setAutoCommit(true);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        requirePrimary(c);
        try (Statement s = c.createStatement()) {
          // the channel is built from a checked identifier (Notifier.channel); LISTEN binds nothing
          s.execute("LISTEN \"" + channel + "\"");
        }
        return new Session(c, pg, autoCommit, channel);
      } catch (SQLException | RuntimeException e) {
        try {
          if (Transient.hasState(e, Transient.READ_ONLY)) {
            c.abort(Runnable::run); // so a pool drops it rather than lending it out again
          }
          c.close();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }

    /**
     * Fails with SQLSTATE 25006 if {@code c} reaches a server in recovery: a standby, or a primary
     * that was demoted. Notifications are sent on the primary only, so a LISTEN there would wait
     * for nothing (PostgreSQL refuses it, too: "cannot execute LISTEN during recovery").
     */
    static void requirePrimary(Connection c) throws SQLException {
      try (Statement s = c.createStatement()) {
        s.setQueryTimeout(CHECK_SECONDS);
        try (ResultSet r = s.executeQuery("select pg_is_in_recovery()")) {
          if (r.next() && r.getBoolean(1)) {
            throw new SQLException(
                "the listening connection reaches a server in recovery, not the primary",
                Transient.READ_ONLY);
          }
        }
      }
    }

    /** Cuts the connection, so that a pool drops it when it is closed. */
    void abort() {
      try {
        connection.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        LOG.debug("could not abort the listening connection", e);
      }
    }

    /**
     * Stops listening and gives the connection back: a pooled connection left LISTENing would
     * buffer every later notification for whoever borrows it next. On a dead connection the
     * UNLISTEN fails through the pool's proxy, which tells the pool to evict it.
     */
    void close() {
      try (Statement s = connection.createStatement()) {
        s.execute("UNLISTEN \"" + channel + "\"");
        if (!autoCommit) {
          connection.setAutoCommit(false);
        }
      } catch (SQLException e) {
        LOG.debug("could not UNLISTEN {}", channel, e);
      } finally {
        try {
          connection.close();
        } catch (SQLException e) {
          LOG.debug("could not close the listening connection", e);
        }
      }
    }
  }
}
