/**
 * The help desk itself: users, teams and memberships (roles OWNER, STAFF, CUSTOMER), tickets
 * with an integer {@code version} bumped by every change, notifications and the append-only
 * system event log; plus {@link com.teamdesk.tasks.team.TeamAccess}, the one place that decides
 * who may see or do what in a team, and {@link com.teamdesk.tasks.team.JdbcTeamWrites}, the team
 * lock and the writes other packages make to the team's tables, inside the caller's transaction.
 */
package com.teamdesk.tasks.team;
