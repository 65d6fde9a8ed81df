/** The ZooKeeper backend's implementation; not part of the API. */
@NullMarked
package dev.fencing.zookeeper.internal;

import org.jspecify.annotations.NullMarked;
