package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import javax.sql.DataSource;

/** Test access to {@link JdbcTicketReader} outside a container. */
public final class TicketReaders {
    private TicketReaders() {
    }

    /** @return a reader over {@code dataSource}, as the container would inject it */
    public static JdbcTicketReader over(DataSource dataSource) {
        JdbcTicketReader r = new JdbcTicketReader();
        r.jdbc = new Jdbc(dataSource);
        return r;
    }
}
