package dev.fencing.keyed;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A third-party service started on loopback: {@code POST /charges} records an effect, {@code GET
 * /operations/{key}} looks one up. It knows nothing of epochs. Depending on its {@link Kind} it
 * deduplicates on the {@code Idempotency-Key} header or not, and has a lookup or answers 404. The
 * calls numbered in {@code lose} are processed (the effect is recorded) and then their answer is
 * lost: the connection is dropped without an answer, or the answer comes after {@code late}.
 */
final class KeyedService implements AutoCloseable {

  enum Kind {
    /** Deduplicates on the key and has a lookup. */
    DEDUPES_WITH_LOOKUP(true, true),
    /** Deduplicates on the key; every lookup answers 404. */
    DEDUPES_WITHOUT_LOOKUP(true, false),
    /** Records an effect per call, key or not; only its lookup knows the keys. */
    LOOKUP_ONLY(false, true);

    final boolean dedupes;
    final boolean lookup;

    Kind(boolean dedupes, boolean lookup) {
      this.dedupes = dedupes;
      this.lookup = lookup;
    }
  }

  enum Loss {
    /** Close the connection without a byte of answer. */
    DROP,
    /** Answer, but only after {@code late}: after the client gave up. */
    LATE
  }

  private final Kind kind;
  private final Loss loss;
  private final Set<Integer> lose;
  private final Duration late;
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger lookups = new AtomicInteger();
  private final AtomicInteger effects = new AtomicInteger();
  private final Map<String, Integer> effectsPerKey = new ConcurrentHashMap<>();
  private final Map<String, String> results = new ConcurrentHashMap<>();
  private final List<String> keysSeen = new CopyOnWriteArrayList<>();
  private final List<String> epochsSeen = new CopyOnWriteArrayList<>();
  private final AtomicInteger lookupsToLose = new AtomicInteger();
  private volatile int refuseWith;
  private volatile Duration lateLookup = Duration.ZERO;

  KeyedService(Kind kind, Loss loss, Set<Integer> lose, Duration late) throws IOException {
    this.kind = kind;
    this.loss = loss;
    this.lose = Set.copyOf(lose);
    this.late = late;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/charges", this::charge);
    server.createContext("/operations/", this::lookup);
    server.setExecutor(executor);
    server.start();
  }

  static KeyedService answering(Kind kind) throws IOException {
    return new KeyedService(kind, Loss.DROP, Set.of(), Duration.ZERO);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Every later call is answered with this 4xx and records nothing. */
  void refuseWith(int status) {
    refuseWith = status;
  }

  /**
   * The next {@code count} lookups are answered only after {@code late}, after the client gave up.
   * (A dropped connection would not do: the JDK's client sends a GET again by itself.)
   */
  void loseLookups(int count, Duration late) {
    lateLookup = late;
    lookupsToLose.set(count);
  }

  int calls() {
    return calls.get();
  }

  int lookups() {
    return lookups.get();
  }

  /** All effects recorded, over all keys. */
  int effects() {
    return effects.get();
  }

  Map<String, Integer> effectsPerKey() {
    return Map.copyOf(effectsPerKey);
  }

  List<String> keysSeen() {
    return List.copyOf(keysSeen);
  }

  List<String> epochsSeen() {
    return List.copyOf(epochsSeen);
  }

  private void charge(HttpExchange exchange) throws IOException {
    try (exchange) {
      int call = calls.incrementAndGet();
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      keysSeen.add(String.valueOf(key));
      epochsSeen.add(String.valueOf(exchange.getRequestHeaders().getFirst("Fencing-Epoch")));
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      if (refuseWith != 0) {
        answer(exchange, refuseWith, "{\"error\":\"card declined\"}");
        return;
      }
      String result;
      synchronized (this) {
        String stored = kind.dedupes && key != null ? results.get(key) : null;
        if (stored != null) {
          result = stored;
        } else {
          int effect = effects.incrementAndGet();
          effectsPerKey.merge(String.valueOf(key), 1, Integer::sum);
          result = "{\"charge\":" + effect + ",\"request\":" + body + "}";
          if (key != null) {
            results.putIfAbsent(key, result);
          }
        }
      }
      if (lose.contains(call)) {
        if (loss == Loss.DROP) {
          // processed, recorded, and no answer: the client sees the connection end
          dropConnection(exchange);
          return;
        }
        sleep(late);
      }
      answer(exchange, 200, result);
    }
  }

  private void lookup(HttpExchange exchange) throws IOException {
    try (exchange) {
      lookups.incrementAndGet();
      if (lookupsToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        sleep(lateLookup);
      }
      String path = exchange.getRequestURI().getPath();
      String key = path.substring(path.lastIndexOf('/') + 1);
      String stored = kind.lookup ? results.get(key) : null;
      if (stored == null) {
        answer(exchange, 404, "{\"error\":\"no such operation\"}");
      } else {
        answer(exchange, 200, stored);
      }
    }
  }

  private static void dropConnection(HttpExchange exchange) {
    // Closed before any response headers were sent, the JDK's server closes the connection
    // without writing a status line.
    exchange.close();
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
