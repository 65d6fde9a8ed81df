package dev.fencing.runtime;

import dev.fencing.JobCodec;
import dev.fencing.JobCodecException;
import dev.fencing.JobType;
import java.util.List;

/** Turns a typed {@link Handler} into the runtime's own, which works on JSON text. */
final class TypedHandlers {

  private TypedHandlers() {}

  /**
   * Returns a handler that decodes each payload as {@code type}'s, runs {@code handler} and encodes
   * its result with {@code codec}. A payload that does not decode throws {@link
   * UndecodablePayload}; a null result of a non-Void type is returned as null (a failure the
   * runtime names).
   */
  static <P, R> OutboxHandler adapt(JobType<P, R> type, Handler<P, R> handler, JobCodec codec) {
    return (job, cancellation) -> {
      P payload;
      try {
        payload = type.decodePayload(codec, job.payload());
      } catch (JobCodecException e) {
        throw new UndecodablePayload(e);
      }
      R result = handler.handle(new JobContext<>(job, payload), cancellation);
      if (result == null && type.resultType() != Void.class) {
        return null;
      }
      return new HandlerResult(type.encodeResult(codec, result), List.of());
    };
  }

  /** A payload that no attempt can decode: the job ends failed at once, with the decoder's text. */
  static final class UndecodablePayload extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UndecodablePayload(JobCodecException cause) {
      super(cause.getMessage(), cause);
    }

    /** What the job's last error and its outcome say: no internal class name. */
    @Override
    public String toString() {
      return "the payload does not decode: " + getMessage();
    }
  }
}
