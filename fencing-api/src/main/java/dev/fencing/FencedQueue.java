package dev.fencing;

/**
 * A job queue whose every claim takes a new, larger epoch and whose every commit is a
 * compare-and-set on owner and epoch, in all its roles: the producer's ({@link JobProducer}), the
 * worker's ({@link JobConsumer}) and the operator's ({@link QueueOperator}). A backend implements
 * this; an application hands each of its parts only the role it needs. Leases are judged on the
 * backend's clock, never the worker's.
 *
 * <p>Parameters are checked before anything is written; a bad one raises {@link
 * IllegalArgumentException} naming the parameter and the value, and changes nothing.
 *
 * <p>A failure of the store never escapes as the driver's or client's own type: a store that cannot
 * be reached or refuses after the backend's retries is a {@link StoreUnavailableException} (the
 * failure is its cause), a store without the backend's tables a {@link
 * SchemaNotInstalledException}. Each method says what such a failure leaves behind.
 *
 * @since 0.1
 */
public interface FencedQueue extends JobProducer, JobConsumer, QueueOperator {}
