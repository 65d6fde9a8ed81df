/** Implementation of the etcd backend; not API, not exported. */
@NullMarked
package dev.fencing.etcd.internal;

import org.jspecify.annotations.NullMarked;
