package dev.fencing.http.internal;

import dev.fencing.FencedOutcome;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** The bodies a server answers with, each naming what happened in words a person can read. */
final class Responses {

  private Responses() {}

  static void outcome(Response response, Callback callback, FencedOutcome outcome) {
    switch (outcome) {
      case FencedOutcome.Accepted accepted ->
          send(
              response,
              callback,
              200,
              Wire.write(
                  g -> {
                    Wire.field(g, "outcome", "accepted");
                    Wire.field(g, "repeat", accepted.repeat());
                  }));
      case FencedOutcome.Superseded superseded ->
          send(
              response,
              callback,
              409,
              Wire.write(
                  g -> {
                    Wire.field(g, "outcome", "superseded");
                    Wire.field(g, "current", superseded.current().value());
                  }));
      case FencedOutcome.Refused refused ->
          error(response, callback, 500, "unexpected_outcome", "outcome", refused.toString());
    }
  }

  static void error(
      Response response,
      Callback callback,
      int status,
      String error,
      String field,
      String message) {
    send(
        response,
        callback,
        status,
        Wire.write(
            g -> {
              Wire.field(g, "error", error);
              Wire.field(g, "field", field);
              Wire.field(g, "message", message);
            }));
  }

  static void send(Response response, Callback callback, int status, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
