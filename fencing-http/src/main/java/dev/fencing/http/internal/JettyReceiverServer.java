package dev.fencing.http.internal;

import java.net.URI;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** A running Jetty server with one connector and the receiver's handler. */
public final class JettyReceiverServer implements AutoCloseable {

  /** The server's one connector; {@link ServerConnector#getServer()} is the server. */
  private final ServerConnector connector;

  private JettyReceiverServer(ServerConnector connector) {
    this.connector = connector;
  }

  /** Starts a server for {@code config}; it is listening when this returns. */
  public static JettyReceiverServer start(ServerConfig config) {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("fencing-http");
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(config.host());
    connector.setPort(config.port());
    connector.setIdleTimeout(config.idleTimeout().toMillis());
    server.addConnector(connector);
    server.setHandler(new ReceiverHandler(config));
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly(server);
      throw new IllegalStateException(
          "could not start the HTTP receiver on " + config.host() + ":" + config.port(), e);
    }
    return new JettyReceiverServer(connector);
  }

  /** Returns the port the server listens on. */
  public int port() {
    return connector.getLocalPort();
  }

  /** Returns the server's address, {@code http://host:port}. */
  public URI uri() {
    String host = connector.getHost();
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port());
  }

  @Override
  public void close() {
    try {
      connector.getServer().stop();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the HTTP receiver", e);
    }
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception ignored) {
      // already failing to start; the start failure is what the caller needs
    }
  }
}
