/**
 * T4 on real server processes ({@code java -jar payara-micro.jar}, not Arquillian): the worker's
 * heartbeat, the SIGTERM drain, the exit at the grace deadline and the healing of the cut-off runs
 * by a second server's timers (R19, R20, R22). See {@link com.teamdesk.tasks.it.lifecycle.LifecycleIT}.
 * R14 on the same kind of process: a SIGKILL inside the reminder transaction, then one reminder
 * after recovery ({@link com.teamdesk.tasks.it.lifecycle.ReminderCrashIT}).
 */
package com.teamdesk.tasks.it.lifecycle;
