package dev.fencing.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback that can lose an answer: armed, it forwards the next request to the
 * server, lets the server handle it, swallows the server's reply and drops the connection. The
 * client sees a dropped connection after its request has landed.
 */
final class LosingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int target;
  private final AtomicBoolean armed = new AtomicBoolean();
  private final AtomicInteger lost = new AtomicInteger();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  LosingProxy(int target) throws IOException {
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = target;
    Thread.ofPlatform().daemon().name("losing-proxy").start(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  void loseNextAnswer() {
    armed.set(true);
  }

  int lostAnswers() {
    return lost.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(server);
        Thread.ofPlatform().daemon().start(() -> pump(client, server, false));
        Thread.ofPlatform().daemon().start(() -> pump(server, client, true));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean answers) {
    byte[] buffer = new byte[65_536];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        if (answers && armed.compareAndSet(true, false)) {
          lost.incrementAndGet();
          break;
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException dropped) {
      // one side went away; drop the other
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(LosingProxy::closeQuietly);
  }
}
