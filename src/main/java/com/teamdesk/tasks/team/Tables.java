package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;

/** The team package's tables, as {@link Jdbc}'s errors name them (issue 29: the team package owns them). */
final class Tables {
    static final Jdbc.Table APP_USER = Jdbc.Table.of("app_user");
    static final Jdbc.Table TEAM = Jdbc.Table.of("team");
    static final Jdbc.Table MEMBERSHIP = Jdbc.Table.of("membership");
    static final Jdbc.Table TICKET = Jdbc.Table.of("ticket");
    static final Jdbc.Table NOTIFICATION = Jdbc.Table.of("notification");
    static final Jdbc.Table SYSTEM_EVENT = Jdbc.Table.of("system_event");
    static final Jdbc.Table TICKET_REPLY = Jdbc.Table.of("ticket_reply");

    private Tables() {
    }
}
