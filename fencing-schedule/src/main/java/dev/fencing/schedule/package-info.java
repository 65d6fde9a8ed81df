/**
 * Recurring jobs, one per slot: {@link dev.fencing.schedule.FencedScheduler} enqueues a job for
 * each slot of each {@link dev.fencing.schedule.Schedule} (a {@link dev.fencing.schedule.Trigger}:
 * a cron expression or a fixed interval, in a time zone), and its {@link
 * dev.fencing.schedule.Missed} policy decides what happens to slots missed while no scheduler ran.
 * See docs/SCHEDULES.md.
 */
@NullMarked
package dev.fencing.schedule;

import org.jspecify.annotations.NullMarked;
