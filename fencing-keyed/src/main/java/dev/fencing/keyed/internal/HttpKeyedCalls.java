package dev.fencing.keyed.internal;

import dev.fencing.Epoch;
import dev.fencing.keyed.CallId;
import dev.fencing.keyed.KeyedCalls;
import dev.fencing.keyed.KeyedOutcome;
import dev.fencing.keyed.LeaseCheck;
import dev.fencing.keyed.internal.Exchange.Answer;
import dev.fencing.keyed.internal.Exchange.Answered;
import dev.fencing.keyed.internal.Exchange.Interrupted;
import dev.fencing.keyed.internal.Exchange.NoAnswer;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Objects;
import java.util.Optional;

/**
 * Sends a call; when its outcome is unknown, looks the key up before sending it again. A small loop
 * rather than a Resilience4j {@code Retry}: what comes next depends on what the last request was (a
 * call or a lookup) and what it said, which is not a retry of one callable.
 */
public final class HttpKeyedCalls implements KeyedCalls {

  private final Config config;
  private final Keys keys;
  private final boolean lookupBeforeRetry;
  private final HttpClient client;
  private final Exchange exchange;

  /**
   * @param keys how keys are derived ({@link Keys#STABLE}; tests pass broken variants)
   * @param lookupBeforeRetry whether an unknown outcome is looked up before the call is sent again
   *     (always, except in the tests' broken variant)
   */
  public HttpKeyedCalls(Config config, Keys keys, boolean lookupBeforeRetry) {
    this.config = config;
    this.keys = keys;
    this.lookupBeforeRetry = lookupBeforeRetry;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(config.connectTimeout())
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.exchange = new Exchange(client);
  }

  @Override
  public String keyOf(CallId id) {
    return Keys.sha256(config.namespace(), Objects.requireNonNull(id, "id"));
  }

  @Override
  public KeyedOutcome post(CallId id, Epoch epoch, String path, String body, LeaseCheck check) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(epoch, "epoch");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(check, "check");
    return new Run(id, epoch, path, body, check).outcome();
  }

  @Override
  public void close() {
    client.close();
  }

  /** One call's attempts. */
  private final class Run {
    private final URI target;
    private final String key;
    private final Epoch epoch;
    private final String body;
    private final LeaseCheck check;
    private int calls;
    private int lookups;
    private String last = "nothing was sent";

    /**
     * @throws IllegalArgumentException if {@code path} does not resolve against the base URI
     */
    Run(CallId id, Epoch epoch, String path, String body, LeaseCheck check) {
      this.target = config.resolve("path", path);
      this.key = keys.key(config.namespace(), id, epoch);
      this.epoch = epoch;
      this.body = body;
      this.check = check;
    }

    KeyedOutcome outcome() {
      if (config.lookupFirst()) {
        Optional<KeyedOutcome> found = lookUp();
        if (found.isPresent()) {
          return found.get();
        }
      }
      while (calls < config.maxAttempts()) {
        Optional<String> lost = check.lost();
        if (lost.isPresent()) {
          return new KeyedOutcome.FencedOff(key, epoch, lost.get());
        }
        calls++;
        Answer answer = exchange.send(Exchange.post(config, target, key, epoch.value(), body));
        Optional<KeyedOutcome> settled = settleCall(answer);
        if (settled.isPresent()) {
          return settled.get();
        }
        if (lookupBeforeRetry) {
          Optional<KeyedOutcome> found = lookUp();
          if (found.isPresent()) {
            return found.get();
          }
        } else if (!pause()) {
          return unknown();
        }
      }
      return unknown();
    }

    /** Returns the outcome if the call's answer settles it, or empty if it is unknown. */
    private Optional<KeyedOutcome> settleCall(Answer answer) {
      return switch (answer) {
        case Answered(int status, String text) when status >= 200 && status < 300 ->
            Optional.of(new KeyedOutcome.Done(key, epoch, status, text, false));
        case Answered(int status, String text) when unsettled(status) -> {
          last = "call answered HTTP " + status;
          yield Optional.empty();
        }
        case Answered(int status, String text) ->
            Optional.of(new KeyedOutcome.Refused(key, epoch, status, text));
        case NoAnswer(String reason) -> {
          last = "call got " + reason;
          yield Optional.empty();
        }
        case Interrupted() -> {
          last = "interrupted while waiting for the call's answer";
          yield Optional.of(unknown());
        }
      };
    }

    /**
     * Looks the key up until the service says found (the outcome) or not found (empty: send again);
     * a lookup without a clear answer is repeated, never replaced by a blind resend.
     */
    private Optional<KeyedOutcome> lookUp() {
      while (lookups < config.maxAttempts()) {
        // nothing to wait for before the first request of a call
        if ((calls > 0 || lookups > 0) && !pause()) {
          return Optional.of(unknown());
        }
        lookups++;
        switch (exchange.send(Exchange.lookup(config, key))) {
          case Answered(int status, String text) when status == 200 -> {
            return Optional.of(new KeyedOutcome.Done(key, epoch, status, text, true));
          }
          case Answered(int status, String text) when status == 404 -> {
            last = "lookup found nothing (HTTP 404) after " + last;
            return Optional.empty();
          }
          case Answered(int status, String text) -> last = "lookup answered HTTP " + status;
          case NoAnswer(String reason) -> last = "lookup got " + reason;
          case Interrupted() -> {
            last = "interrupted while waiting for a lookup's answer";
            return Optional.of(unknown());
          }
        }
      }
      return Optional.of(unknown());
    }

    /** Returns false if interrupted (the flag is set again). */
    private boolean pause() {
      try {
        Thread.sleep(config.retryDelay());
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        last = "interrupted while pausing before the next attempt";
        return false;
      }
    }

    private KeyedOutcome.Unknown unknown() {
      return new KeyedOutcome.Unknown(
          key,
          epoch,
          calls,
          lookups,
          "outcome unknown after "
              + calls
              + (calls == 1 ? " call" : " calls")
              + " to "
              + target
              + " and "
              + lookups
              + (lookups == 1 ? " lookup" : " lookups")
              + " of key "
              + key
              + " ("
              + epoch
              + "); last: "
              + last
              + ". The effect may or may not have happened: look the key up before acting on it.");
    }
  }

  /** A status that says nothing about whether the effect happened, or asks to come back. */
  private static boolean unsettled(int status) {
    return status >= 500 || status == 408 || status == 409 || status == 425 || status == 429;
  }
}
