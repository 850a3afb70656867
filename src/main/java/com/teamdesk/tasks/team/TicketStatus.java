package com.teamdesk.tasks.team;

/** Life cycle of a ticket. */
public enum TicketStatus { OPEN, PENDING, CLOSED }
