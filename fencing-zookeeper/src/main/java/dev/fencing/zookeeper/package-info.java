/** The ZooKeeper backend: {@link dev.fencing.zookeeper.ZooKeeperOwnership} is the front door. */
@NullMarked
package dev.fencing.zookeeper;

import org.jspecify.annotations.NullMarked;
