/** The fencing API: no dependencies. */
module dev.fencing.api {
  requires static org.jspecify;

  exports dev.fencing;
  exports dev.fencing.tuning;
  // dev.fencing.zookeeper has no module-info: its jar names itself so (Automatic-Module-Name)
  exports dev.fencing.internal to
      dev.fencing.postgres,
      dev.fencing.receiver,
      dev.fencing.runtime,
      dev.fencing.etcd,
      dev.fencing.http,
      dev.fencing.keyed,
      dev.fencing.micrometer,
      dev.fencing.schedule,
      dev.fencing.zookeeper;
}
