package dev.fencing.testkit.process;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A producer process driven line by line by {@link dev.fencing.testkit.property.ProducerRunner}. It
 * keeps its newest ownership per resource even after it was lost, and sends with it when told to: a
 * zombie does exactly that, and the receiver must refuse it.
 *
 * <pre>
 * acquire R MS | renew R MS | send R | release R | reset
 * </pre>
 *
 * @since 0.1
 */
public final class PuppetProducer {

  private final String name;
  private final ResourceOwnership ownership;
  private final FencedReceiver receiver;
  private final Map<String, Ownership> newest = new HashMap<>();

  private PuppetProducer(String name, ResourceOwnership ownership, FencedReceiver receiver) {
    this.name = name;
    this.ownership = ownership;
    this.receiver = receiver;
  }

  /** Arguments: backend class, address, JDBC URL, user, password, receiver schema, owner name. */
  public static void main(String[] args) throws Exception {
    OwnershipBackend backend = OwnershipBackend.load(args[0]);
    // pooled, as a producer would run: a new connection per call cost tens of milliseconds of the
    // server's CPU each (a fork and a backend start), a good part of an interleaving's time; 10 s
    // for a
    // connection, as a fresh JVM's first one on a loaded machine took over 2 s
    DataSource database =
        new PostgresFixture.Database(args[2], args[3], args[4], "producer")
            .pooledDataSource(2, Duration.ofSeconds(10));
    try (ResourceOwnership ownership = backend.ownership(args[1], database)) {
      PuppetProducer producer =
          new PuppetProducer(args[6], ownership, backend.receiver(database, args[5]));
      producer.warmUp();
      System.out.println("ok ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String reply;
        try {
          reply = producer.run(line.split(" "));
        } catch (CoordinationException e) {
          // the service did not answer (a stalled process's session may have ended): a fact
          // the interleaving lives with, not a failure of the run
          reply = "unavailable " + e.getMessage();
        } catch (RuntimeException e) {
          reply = "error " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(reply.replace('\n', ' '));
      }
    }
    System.exit(0);
  }

  /**
   * Runs every command once on a resource of its own, so that the first real step is not slowed by
   * class loading and lets a short lease run out where a rerun would not.
   */
  private void warmUp() {
    String resource = "warm-up-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    run(new String[] {"acquire", resource, "60000"});
    run(new String[] {"renew", resource, "60000"});
    run(new String[] {"send", resource});
    run(new String[] {"release", resource});
    run(new String[] {"acquire", resource + "-held", "60000"});
    run(new String[] {"acquire", resource + "-held", "60000"});
    run(new String[] {"reset"});
  }

  private String run(String[] command) {
    String resource = command.length > 1 ? command[1] : "";
    Ownership mine = newest.get(resource);
    return switch (command[0]) {
      case "reset" -> {
        newest.clear();
        yield "ok reset";
      }
      case "acquire" -> acquire(resource, Duration.ofMillis(Long.parseLong(command[2])));
      case "renew" ->
          mine == null
              ? "none " + resource
              : renew(mine, Duration.ofMillis(Long.parseLong(command[2])));
      case "send" -> mine == null ? "none " + resource : send(mine);
      case "release" -> mine == null ? "none " + resource : release(mine);
      default -> throw new IllegalArgumentException("command must be known, but was " + command[0]);
    };
  }

  private String acquire(String resource, Duration lease) {
    return switch (ownership.acquire(resource, name, lease)) {
      case Acquisition.Acquired acquired -> {
        newest.put(resource, acquired.ownership());
        yield "acquired " + resource + " " + acquired.ownership().epoch().value();
      }
      case Acquisition.Held held ->
          "held " + resource + " " + held.epoch().value() + " by " + held.owner();
    };
  }

  private String renew(Ownership mine, Duration lease) {
    return switch (ownership.renew(mine, lease)) {
      case OwnershipRenewal.Renewed renewed -> {
        newest.put(mine.resource(), renewed.ownership());
        yield "renewed " + mine.resource() + " " + mine.epoch().value();
      }
      case OwnershipRenewal.Lost lost ->
          "lost " + mine.resource() + " " + mine.epoch().value() + " " + lost.why();
    };
  }

  private String send(Ownership mine) {
    String payload = "{\"producer\":\"" + name + "\",\"epoch\":" + mine.epoch().value() + "}";
    return said(receiver.deliver(mine, payload), mine, "accepted", "refused");
  }

  private String release(Ownership mine) {
    return said(ownership.release(mine), mine, "released", "superseded");
  }

  /**
   * The line that reports {@code outcome} for {@code mine}: {@code accepted} or {@code superseded}
   * (followed by the newer epoch) as the first word, or {@code refused} and the refusal.
   */
  private static String said(
      FencedOutcome outcome, Ownership mine, String accepted, String superseded) {
    String held = mine.resource() + " " + mine.epoch().value();
    return switch (outcome) {
      case FencedOutcome.Accepted a -> accepted + " " + held + (a.repeat() ? " repeat" : "");
      case FencedOutcome.Superseded s -> superseded + " " + held + " by " + s.current().value();
      case FencedOutcome.Refused refused -> "refused " + held + " " + refused;
    };
  }
}
