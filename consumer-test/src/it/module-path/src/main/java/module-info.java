/** A user's application on the module path: it reads fencing-postgres's module, and no jOOQ. */
module example.modular {
  requires dev.fencing.postgres;
  requires org.postgresql.jdbc;
  requires java.naming; // PGSimpleDataSource is Referenceable
}
