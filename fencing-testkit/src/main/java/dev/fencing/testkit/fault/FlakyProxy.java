package dev.fencing.testkit.fault;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy on loopback in front of PostgreSQL that can lose an acknowledgement: armed with
 * {@link #loseNextAcknowledgement(String)}, it lets the next matching statement run and commit on
 * the server, swallows the server's reply, and drops the connection. The client sees a broken
 * connection after its write has landed: an ambiguous commit, for real.
 *
 * <p>It reads the server's side of the PostgreSQL wire protocol, so clients must connect without
 * TLS ({@code sslmode=disable}).
 *
 * @since 0.1
 */
public final class FlakyProxy implements AutoCloseable {

  private final ServerSocket listener;
  private volatile boolean closed;
  private PostgresFixture.@org.jspecify.annotations.Nullable Database proxied;
  private final InetSocketAddress target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile String commandTag = "";
  private volatile int lost;

  private FlakyProxy(ServerSocket listener, InetSocketAddress target) {
    this.listener = listener;
    this.target = target;
  }

  /** Starts a proxy on a free loopback port, forwarding to {@code host}:{@code port}. */
  public static FlakyProxy start(String host, int port) {
    try {
      ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      FlakyProxy proxy = new FlakyProxy(listener, new InetSocketAddress(host, port));
      daemon("flaky-proxy-accept", proxy::acceptLoop);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts a proxy in front of {@code database}; {@link #database()} then describes the same
   * database reached through the proxy.
   */
  public static FlakyProxy inFrontOf(PostgresFixture.Database database) {
    java.util.Properties url =
        org.postgresql.Driver.parseURL(database.jdbcUrl(), new java.util.Properties());
    if (url == null) {
      throw new IllegalArgumentException(
          "database must have a PostgreSQL JDBC URL, but was '" + database.jdbcUrl() + "'");
    }
    FlakyProxy proxy =
        start(
            url.getProperty("PGHOST", "localhost").split(",")[0],
            Integer.parseInt(url.getProperty("PGPORT", "5432").split(",")[0]));
    proxy.proxied =
        new PostgresFixture.Database(
            "jdbc:postgresql://127.0.0.1:"
                + proxy.port()
                + "/"
                + url.getProperty("PGDBNAME", "postgres")
                + "?sslmode=disable",
            url.getProperty("user", database.user()),
            url.getProperty("password", database.password()),
            database.source() + " through a flaky proxy");
    return proxy;
  }

  /**
   * Returns the database this proxy stands in front of, reached through it.
   *
   * @throws IllegalStateException if the proxy was not started with {@link #inFrontOf}
   */
  public PostgresFixture.Database database() {
    if (proxied == null) {
      throw new IllegalStateException("this proxy was started by address, not inFrontOf(database)");
    }
    return proxied;
  }

  /** Returns the port clients connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Arms the proxy: the next statement whose command tag starts with {@code commandTag} (e.g.
   * {@code UPDATE}) commits on the server, but its reply never reaches the client and the
   * connection drops.
   */
  public void loseNextAcknowledgement(String commandTag) {
    this.commandTag = commandTag;
    armed.set(true);
  }

  /** Returns how many acknowledgements were lost so far. */
  public int lostAcknowledgements() {
    return lost;
  }

  /** Drops every open connection, as a database restart would. */
  public void dropAllConnections() {
    sockets.forEach(FlakyProxy::closeQuietly);
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    dropAllConnections();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(target, 10_000);
        // each message goes out whole as soon as it is read: no Nagle delay behind delayed ACKs
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        if (closed) {
          // accepted just before close(): it must not be forwarded
          closeQuietly(client);
          closeQuietly(server);
          return;
        }
        daemon("flaky-proxy-up", () -> copy(client, server));
        daemon("flaky-proxy-down", () -> relayReplies(server, client));
      } catch (IOException e) {
        if (listener.isClosed()) {
          return;
        }
      }
    }
  }

  private void copy(Socket from, Socket to) {
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException ignored) {
      // one side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /** Forwards server messages (type byte, int32 length, body) and loses the armed one. */
  private void relayReplies(Socket server, Socket client) {
    try (DataInputStream in =
            new DataInputStream(new java.io.BufferedInputStream(server.getInputStream()));
        OutputStream socket = client.getOutputStream();
        java.io.BufferedOutputStream out = new java.io.BufferedOutputStream(socket, 1 << 16)) {
      boolean swallowing = false;
      while (true) {
        byte type = in.readByte();
        int length = in.readInt();
        byte[] body = in.readNBytes(length - 4);
        if (!swallowing && type == 'C' && armed.get() && tag(body).startsWith(commandTag)) {
          swallowing = armed.compareAndSet(true, false);
        }
        if (swallowing) {
          if (type == 'Z') {
            // ReadyForQuery: the statement's transaction has committed; now lose the connection
            lost++;
            return;
          }
          continue;
        }
        out.write(type);
        out.write(
            new byte[] {
              (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
            });
        out.write(body);
        if (in.available() == 0) {
          // the server has sent nothing more yet: what was read so far goes out in one write
          out.flush();
        }
      }
    } catch (IOException ignored) {
      // one side closed
    } finally {
      closeQuietly(server);
      closeQuietly(client);
    }
  }

  private static String tag(byte[] body) {
    int end = body.length > 0 && body[body.length - 1] == 0 ? body.length - 1 : body.length;
    return new String(body, 0, end, StandardCharsets.US_ASCII);
  }

  private static void daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(java.io.Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
