/**
 * A fenced receiver over HTTP: {@link dev.fencing.http.HttpReceiverServer} puts any {@link
 * dev.fencing.FencedReceiver} on the network, {@link dev.fencing.http.HttpReceiverClient} is one.
 */
@NullMarked
package dev.fencing.http;

import org.jspecify.annotations.NullMarked;
