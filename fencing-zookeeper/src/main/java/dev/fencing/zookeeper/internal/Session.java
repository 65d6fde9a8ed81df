package dev.fencing.zookeeper.internal;

import dev.fencing.CoordinationException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.ZooKeeper;

/** The Curator client: the current ZooKeeper handle, and news of the connection. */
@Singleton
final class Session implements AutoCloseable {

  private final CuratorFramework curator;
  private final String connectString;

  /** The session Curator's event thread last saw connected: the one an interruption is about. */
  private volatile long connected;

  @Inject
  Session(CuratorFramework curator, Config config) {
    this.curator = curator;
    this.connectString = config.connectString();
  }

  /**
   * Starts a client and waits until it is connected.
   *
   * @throws CoordinationException naming the connect string if it did not connect in time
   */
  static CuratorFramework connect(Config config) {
    CuratorFramework curator =
        CuratorFrameworkFactory.builder()
            .connectString(config.connectString())
            .sessionTimeoutMs(Math.toIntExact(config.sessionTimeout().toMillis()))
            // Curator warns when this is longer than the session, which could never outlive it
            .connectionTimeoutMs(
                Math.toIntExact(
                    Math.min(
                        config.connectTimeout().toMillis(), config.sessionTimeout().toMillis())))
            // bounded: Curator's own operations give up after 3 retries 100 ms apart
            .retryPolicy(new RetryNTimes(3, 100))
            // the connect string is the caller's; a reconfigured ensemble must not change it
            .ensembleTracker(false)
            .build();
    curator.start();
    try {
      if (curator.blockUntilConnected(
          Math.toIntExact(config.connectTimeout().toMillis()), TimeUnit.MILLISECONDS)) {
        return curator;
      }
      curator.close();
      throw new CoordinationException(
          "could not connect to ZooKeeper at "
              + config.connectString()
              + " within "
              + config.connectTimeout());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      curator.close();
      throw new CoordinationException(
          "interrupted while connecting to ZooKeeper at " + config.connectString(), e);
    } catch (RuntimeException e) {
      curator.close();
      throw e;
    }
  }

  /** Returns the handle of the current session. */
  ZooKeeper handle() throws Unreachable {
    try {
      return curator.getZookeeperClient().getZooKeeper();
    } catch (Exception e) {
      throw new Unreachable("ZooKeeper at " + connectString + ": no session: " + e, e);
    }
  }

  /** Returns the id of the current session. */
  long id() throws Unreachable {
    return handle().getSessionId();
  }

  /**
   * Calls {@code interrupted} with the id of the session it is about when the connection is
   * suspended or the session is lost, and {@code back} when it is connected again (on Curator's
   * event thread: neither may block).
   *
   * <p>The id is that of the session the event thread last saw connected, not the current one: the
   * events of a stalled process arrive after it wakes up, and by then a request of its may already
   * have run in a new session; that session was never interrupted.
   */
  void listen(LongConsumer interrupted, Runnable back) {
    connected = currentIdOrZero();
    curator
        .getConnectionStateListenable()
        .addListener(
            (client, state) -> {
              if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                interrupted.accept(connected);
              } else if (state.isConnected()) {
                connected = currentIdOrZero();
                back.run();
              }
            });
  }

  private long currentIdOrZero() {
    try {
      return id();
    } catch (Unreachable e) {
      return 0;
    }
  }

  @Override
  public void close() {
    curator.close();
  }
}
