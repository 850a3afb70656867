package com.teamdesk.tasks.team;

/** Priority of a ticket. */
public enum Priority { LOW, NORMAL, HIGH, URGENT }
