-- what does not pick it: Flyway runs the callback outside the migration's transaction
SET LOCAL fencing.engine = 'update_in_place';
