package dev.fencing.console;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A {@link FencingConsole} served on its own port by an embedded Jetty, on loopback unless told
 * otherwise.
 *
 * <pre>{@code
 * try (ConsoleServer server = ConsoleServer.builder(console).port(8081).start()) {
 *   System.out.println("console at " + server.uri());
 *   ...
 * }
 * }</pre>
 *
 * <p>On loopback it answers only requests addressed to {@code 127.0.0.1}, {@code localhost} or
 * {@code [::1]} with its port, so a web page that points a name of its own at this machine (DNS
 * rebinding) reads nothing. It refuses to start bound beyond loopback with an anonymous role:
 * there, every user needs credentials.
 *
 * @since 0.1
 */
public final class ConsoleServer implements AutoCloseable {

  private final Server server;
  private final URI uri;

  private ConsoleServer(Server server, URI uri) {
    this.server = server;
    this.uri = uri;
  }

  /** Starts configuring a server for {@code console}. */
  public static Builder builder(FencingConsole console) {
    return new Builder(Objects.requireNonNull(console, "console"));
  }

  /** Returns the console's address, e.g. {@code http://127.0.0.1:8081/}. */
  public URI uri() {
    return uri;
  }

  /** Returns the port it listens on. */
  public int port() {
    return uri.getPort();
  }

  /**
   * Stops serving at once: open connections are closed (a browser's idle keep-alive connection
   * would otherwise hold a graceful stop for its whole timeout). An action cut off mid-request ran
   * in one transaction, so it either took effect or did not.
   */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("the console server did not stop cleanly", e);
    }
  }

  @Override
  public String toString() {
    return "ConsoleServer[" + uri + "]";
  }

  /** Configures a {@link ConsoleServer}. */
  public static final class Builder {

    private final FencingConsole console;
    private String host = "127.0.0.1";
    private int port = 0;

    private Builder(FencingConsole console) {
      this.console = console;
    }

    /**
     * The address to bind, {@code 127.0.0.1} by default; {@code 0.0.0.0} for every interface.
     *
     * @throws IllegalArgumentException if {@code host} is blank
     */
    public Builder host(String host) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host.strip();
      return this;
    }

    /**
     * The port, 0 (the default) for any free one.
     *
     * @throws IllegalArgumentException if {@code port} is not between 0 and 65535
     */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, but was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Binds and starts serving.
     *
     * @throws IllegalArgumentException if {@code host} does not resolve
     * @throws IllegalStateException if the console lets anonymous visitors in and {@code host} is
     *     not a loopback address, or the port cannot be bound
     */
    public ConsoleServer start() {
      boolean loopback = isLoopback(host);
      if (!loopback && console.allowsAnonymous()) {
        throw new IllegalStateException(
            "host "
                + host
                + " is not loopback, so every user needs credentials: remove anonymous(...) and"
                + " add user(...) or token(...)");
      }
      QueuedThreadPool threads = new QueuedThreadPool(16, 2);
      threads.setName("fencing-console");
      threads.setDaemon(true);
      Server server = new Server(threads);
      server.setStopTimeout(0);
      ServerConnector connector = new ServerConnector(server, 1, 1);
      connector.setHost(host);
      connector.setPort(port);
      server.addConnector(connector);
      try {
        connector.open();
        int bound = connector.getLocalPort();
        Set<String> hosts =
            loopback
                ? Set.of("127.0.0.1:" + bound, "localhost:" + bound, "[::1]:" + bound)
                : Set.of();
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder("fencing-console", console.servlet(hosts)), "/*");
        server.setHandler(context);
        server.start();
        String shown = host.contains(":") ? "[" + host + "]" : host;
        return new ConsoleServer(server, URI.create("http://" + shown + ":" + bound + "/"));
      } catch (Exception e) {
        try {
          server.stop();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
        throw new IllegalStateException(
            "could not serve the console on " + host + ":" + port + ": " + e.getMessage(), e);
      }
    }

    private static boolean isLoopback(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("host " + host + " does not resolve", e);
      }
    }
  }
}
