/** The etcd backend: {@link dev.fencing.etcd.EtcdOwnership} is the front door. */
@NullMarked
package dev.fencing.etcd;

import org.jspecify.annotations.NullMarked;
