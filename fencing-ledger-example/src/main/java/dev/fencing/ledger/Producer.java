package dev.fencing.ledger;

import dev.fencing.Acquisition;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.StoreUnavailableException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A producer of seed 002, in a JVM of its own: it owns accounts through a coordination backend and
 * sends their debit requests to the ledger with its epoch. On taking an account over it first
 * registers its epoch with the ledger; it renews its ownership when half the lease is gone, and
 * stops sending for an account the moment its ownership is lost or the ledger refuses its epoch. It
 * prints one line per event and exits when every request of its accounts is done.
 *
 * <pre>
 * Producer &lt;name&gt; &lt;coordination&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt; &lt;schema&gt;
 *          &lt;accounts,comma-separated&gt; &lt;lease-ms&gt; &lt;think-ms&gt; [checked|unchecked]
 * </pre>
 */
public final class Producer {

  private final String name;
  private final ResourceOwnership ownership;
  private final Ledger ledger;
  private final List<String> accounts;
  private final Duration lease;
  private final Duration think;
  private final PrintStream out;
  private final Map<String, Owned> owned = new LinkedHashMap<>();

  private static final class Owned {
    Ownership ownership;
    long seq;

    Owned(Ownership ownership) {
      this.ownership = ownership;
    }
  }

  /** A producer as its command line gives it: name, then accounts, lease and think time. */
  private Producer(String[] args, ResourceOwnership ownership, Ledger ledger, PrintStream out) {
    this.name = args[0];
    this.accounts = Arrays.asList(args[6].split(","));
    this.lease = Duration.ofMillis(Long.parseLong(args[7]));
    this.think = Duration.ofMillis(Long.parseLong(args[8]));
    this.ownership = ownership;
    this.ledger = ledger;
    this.out = out;
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 9 && args.length != 10) {
      System.err.println(
          "usage: Producer name coordination jdbc-url user password schema accounts lease-ms"
              + " think-ms [checked|unchecked]");
      System.exit(2);
    }
    PGSimpleDataSource database = new PGSimpleDataSource();
    database.setUrl(args[2]);
    database.setUser(args[3]);
    database.setPassword(args[4]);
    Ledger ledger =
        args.length == 10 && args[9].equals("unchecked")
            ? Ledger.withoutEpochCheck(database, args[5])
            : Ledger.of(database, args[5]);
    try (ResourceOwnership ownership = Coordination.open(args[1], database)) {
      new Producer(args, ownership, ledger, System.out).run();
    }
    System.exit(0);
  }

  /** Works until every request of its accounts is done. */
  void run() throws InterruptedException {
    say("READY");
    while (true) {
      boolean workLeft = false;
      for (String account : accounts) {
        workLeft |= step(account);
      }
      if (!workLeft) {
        break;
      }
      Thread.sleep(20);
    }
    for (Owned held : owned.values()) {
      try {
        ownership.release(held.ownership);
      } catch (StoreUnavailableException e) {
        say("UNAVAILABLE " + held.ownership.resource() + " " + e.getMessage());
      }
    }
    say("DONE");
  }

  /** Does one thing for {@code account}; returns whether it still has work to do. */
  private boolean step(String account) throws InterruptedException {
    Owned held = owned.get(account);
    if (held == null) {
      held = takeOver(account);
      if (held == null) {
        return ledger.nextRequest(account).isPresent();
      }
    }
    if (!keep(held)) {
      return true;
    }
    Optional<Ledger.Request> next = ledger.nextRequest(account);
    if (next.isEmpty()) {
      return false;
    }
    Ledger.Request request = next.get();
    Ownership mine = held.ownership;
    say("SENDING " + account + " " + mine.epoch().value() + " " + held.seq + " " + request.id());
    Thread.sleep(think.toMillis());
    FencedOutcome outcome = ledger.debit(request, mine.epoch(), held.seq, name);
    switch (outcome) {
      case FencedOutcome.Accepted accepted -> {
        held.seq++;
        say("APPLIED " + account + " " + mine.epoch().value() + " " + request.id());
      }
      case FencedOutcome.Refused refused -> {
        owned.remove(account);
        say("FENCED " + account + " " + mine.epoch().value() + " " + describe(refused));
      }
    }
    return true;
  }

  private Owned takeOver(String account) {
    Acquisition acquisition;
    try {
      acquisition = ownership.acquire(account, name, lease);
    } catch (StoreUnavailableException e) {
      // outcome unknown (a session that expired while this process was frozen, say): an
      // ownership that was granted all the same ends with its lease; try again later
      say("UNAVAILABLE " + account + " " + e.getMessage());
      return null;
    }
    if (!(acquisition instanceof Acquisition.Acquired acquired)) {
      return null;
    }
    Ownership mine = acquired.ownership();
    FencedOutcome fence = ledger.fence(account, mine.epoch());
    if (!fence.isAccepted()) {
      ownership.release(mine);
      say("FENCED " + account + " " + mine.epoch().value() + " at takeover");
      return null;
    }
    say("ACQUIRED " + account + " " + mine.epoch().value());
    Owned held = new Owned(mine);
    owned.put(account, held);
    return held;
  }

  /** Renews when half the lease is gone; returns whether the ownership still holds. */
  private boolean keep(Owned held) {
    Instant renewAt = held.ownership.expiresAt().minus(lease.dividedBy(2));
    if (Instant.now().isBefore(renewAt)) {
      return true;
    }
    OwnershipRenewal renewal = ownership.renew(held.ownership, lease);
    if (renewal instanceof OwnershipRenewal.Lost lost) {
      owned.remove(held.ownership.resource());
      say(
          "LOST "
              + held.ownership.resource()
              + " "
              + held.ownership.epoch().value()
              + " "
              + lost.why());
      return false;
    }
    held.ownership = renewal.ownership();
    return true;
  }

  private static String describe(FencedOutcome.Refused refused) {
    return refused instanceof FencedOutcome.Superseded s
        ? "superseded by " + s.current().value()
        : refused.getClass().getSimpleName();
  }

  private void say(String line) {
    out.println(name + " " + line);
    out.flush();
  }
}
