package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.UUID;

/** Application service of what a member sees about themselves: profile, teams and notifications. */
@ApplicationScoped
@Transactional
public class MemberService {

    @PersistenceContext(unitName = "teamdesk")
    EntityManager em;

    @Inject
    JdbcNotificationReader notifications;

    /**
     * @return the caller with their memberships, ordered by team name
     * @throws NotFoundException ({@code user.not_found}) the token's subject is not a TeamDesk user
     */
    public MemberProfile me(UUID callerId) {
        AppUser user = em.find(AppUser.class, callerId);
        if (user == null) {
            throw new NotFoundException("user.not_found", "Your account is not known to TeamDesk.");
        }
        List<TeamMembership> teams = em.createNamedQuery("Membership.teamsOfUser",
                TeamMembership.class).setParameter("userId", callerId).getResultList();
        return new MemberProfile(user.getId(), user.getUsername(), user.getDisplayName(), List.copyOf(teams));
    }

    /**
     * One page of the caller's notifications, newest first.
     *
     * @param limit  1-500, null = 50
     * @param cursor opaque cursor of the previous page, or null
     * @throws InvalidInputException ({@code page.limit}, {@code page.cursor})
     */
    public Page<NotificationRow> notifications(UUID callerId, Integer limit, String cursor) {
        int n = Page.limit(limit);
        List<NotificationRow> rows = notifications.list(callerId, KeysetCursor.decode(cursor), n + 1);
        return KeysetCursor.page(rows, n, NotificationRow::createdAt, NotificationRow::id);
    }
}
