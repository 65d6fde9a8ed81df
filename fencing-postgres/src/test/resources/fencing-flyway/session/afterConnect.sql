-- docs/UPGRADING.md: the other engine, picked for the first script by a Flyway callback
SET fencing.engine = 'update_in_place';
