/**
 * Spring Boot auto-configuration for fencing: {@link dev.fencing.spring.FencingProperties} (the
 * {@code fencing.*} properties), {@link dev.fencing.spring.QueueHandler} and {@link
 * dev.fencing.spring.OutboxQueueHandler} (beans that run one queue's jobs), {@link
 * dev.fencing.spring.OutboxRelay} (a bean that relays one outbox destination) and {@link
 * dev.fencing.spring.FencedWorkers} (the workers the starter runs).
 */
@NullMarked
package dev.fencing.spring;

import org.jspecify.annotations.NullMarked;
