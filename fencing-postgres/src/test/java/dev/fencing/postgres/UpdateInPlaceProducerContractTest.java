package dev.fencing.postgres;

/**
 * The producer's contract on the update-in-place engine ({@link PostgresProducerContractTest}: the
 * default).
 */
class UpdateInPlaceProducerContractTest extends PostgresProducerContractTest {

  @Override
  PostgresFencing.Builder configure(PostgresFencing.Builder builder) {
    return builder.engine(PostgresFencing.Engine.UPDATE_IN_PLACE);
  }
}
