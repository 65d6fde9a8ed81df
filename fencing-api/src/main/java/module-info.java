/** The fencing API: no dependencies. */
module dev.fencing.api {
  requires static org.jspecify;

  // JobCodec.discover(): the codec a module such as dev.fencing.jackson provides
  uses dev.fencing.JobCodec;

  exports dev.fencing;
  exports dev.fencing.spi;
  // dev.fencing.zookeeper, dev.fencing.spring and dev.fencing.testkit have no module-info: their
  // jars name themselves so (Automatic-Module-Name). The test kit's in-memory queue validates with
  // dev.fencing.internal, so that it refuses what the other backends refuse, with their messages.
  exports dev.fencing.internal to
      dev.fencing.postgres,
      dev.fencing.receiver,
      dev.fencing.runtime,
      dev.fencing.etcd,
      dev.fencing.http,
      dev.fencing.keyed,
      dev.fencing.micrometer,
      dev.fencing.schedule,
      dev.fencing.spring,
      dev.fencing.testkit,
      dev.fencing.zookeeper;
}
