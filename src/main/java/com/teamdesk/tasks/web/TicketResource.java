package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.Ticket;
import com.teamdesk.tasks.team.TicketChanges;
import com.teamdesk.tasks.team.TicketDraft;
import com.teamdesk.tasks.team.TicketQuery;
import com.teamdesk.tasks.team.TicketReply;
import com.teamdesk.tasks.team.TicketService;
import com.teamdesk.tasks.team.sla.TicketSlas;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.io.InputStream;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Tickets of a team: {@code /api/v1/teams/{teamId}/tickets}. Answers carry the ticket's version as
 * {@code ETag}; a PATCH must send it back in {@code If-Match} (missing → 428, stale or weak → 412,
 * {@code *} → any version).
 */
@Tag(name = "tickets")
@Path("teams/{teamId}/tickets")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TicketResource {
    private static final Set<String> CREATE_FIELDS = Set.of("title", "body", "priority", "assigneeId");
    private static final Set<String> PATCH_FIELDS = Set.of("title", "body", "status", "priority", "assigneeId");
    private static final Set<String> REPLY_FIELDS = Set.of("body");

    @Inject
    TicketService tickets;

    @Inject
    TicketSlas slas;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    @Inject
    ApiLinks links;

    @Context
    HttpHeaders headers;

    /**
     * Opens a ticket requested by the caller.
     *
     * @param body {@code {title, body?, priority?, assigneeId?}}
     * @return 201 with {@code Location} and the ticket
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createTicket", summary = "Open a ticket (201)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketCreate")))
    @APIResponse(responseCode = "201", description = "Created", headers = {@Header(name = "Location", schema = @Schema(type = SchemaType.STRING)), @Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Ticket")))
    public Response create(@PathParam("teamId") String teamId, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        JsonObject o = RequestInput.object(body, headers.getMediaType(), CREATE_FIELDS, limits);
        Ticket t = tickets.create(user.id(), team, new TicketDraft(RequestInput.nonNullString(o, "title"),
                RequestInput.string(o, "body"), RequestInput.string(o, "priority"), RequestInput.string(o, "assigneeId")));
        return Response.created(links.ticket(team, t.getId()))
                .tag(etag(t)).entity(TicketJson.of(t)).build();
    }

    /**
     * One page of the team's tickets the caller may see, oldest first.
     *
     * @param status repeated or comma-separated OPEN, PENDING, CLOSED
     */
    @GET
    @Operation(operationId = "listTickets", summary = "List tickets (filters: status, assigneeId, q, createdFrom, createdTo; keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of tickets", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketPage")))
    public PageJson<TicketJson> list(@PathParam("teamId") String teamId, @QueryParam("status") List<String> status,
            @QueryParam("assigneeId") String assigneeId, @QueryParam("q") String q,
            @QueryParam("createdFrom") String createdFrom, @QueryParam("createdTo") String createdTo,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        TicketQuery query = new TicketQuery(status, assigneeId, q, createdFrom, createdTo, RequestInput.limit(limit), cursor);
        return PageJson.of(tickets.list(user.id(), team, query), TicketJson::of);
    }

    /** @return the ticket with its {@code version} (also as {@code ETag}) */
    @GET
    @Path("{ticketId}")
    @Operation(operationId = "getTicket", summary = "Get a ticket")
    @APIResponse(responseCode = "200", description = "The ticket", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Ticket")))
    public Response get(@PathParam("teamId") String teamId, @PathParam("ticketId") String ticketId) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        UUID id = RequestInput.pathId(ticketId, "ticket.not_found");
        Ticket t = tickets.get(user.id(), team, id);
        return Response.ok(TicketJson.of(t)).tag(etag(t)).build();
    }

    /**
     * Changes a ticket at the version named by {@code If-Match}.
     *
     * @param ifMatch the version last read: {@code 3} or {@code "3"}
     * @param body    any of {@code {title, body, status, priority, assigneeId}}; assigneeId null unassigns
     */
    @PATCH
    @Path("{ticketId}")
    @Consumes({MediaType.APPLICATION_JSON, "application/merge-patch+json"})
    @Operation(operationId = "updateTicket", summary = "Change a ticket (If-Match: version; 412 when stale, 428 when missing)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketChanges")))
    @APIResponse(responseCode = "200", description = "The ticket (the same version when nothing changed)", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Ticket")))
    public Response patch(@PathParam("teamId") String teamId, @PathParam("ticketId") String ticketId,
            @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        UUID id = RequestInput.pathId(ticketId, "ticket.not_found");
        int version = version(ifMatch);
        JsonObject o = RequestInput.object(body, headers.getMediaType(), PATCH_FIELDS, limits);
        TicketChanges changes = new TicketChanges(RequestInput.nonNullString(o, "title"),
                RequestInput.nonNullString(o, "body"), RequestInput.nonNullString(o, "status"),
                RequestInput.nonNullString(o, "priority"), o.containsKey("assigneeId"), RequestInput.string(o, "assigneeId"));
        Ticket t = tickets.patch(user.id(), team, id, version, changes);
        return Response.ok(TicketJson.of(t)).tag(etag(t)).build();
    }

    /**
     * Issue 53 (R57): a reply on the ticket by whoever may see it; a customer's reply on a PENDING ticket reopens it.
     *
     * @param body {@code {body}}
     * @return 201 with the reply
     */
    @POST
    @Path("{ticketId}/replies")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "replyToTicket", summary = "Reply on a ticket (201); staff's first reply meets the first-response promise")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "ReplyCreate")))
    @APIResponse(responseCode = "201", description = "The reply", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketReply")))
    public Response reply(@PathParam("teamId") String teamId, @PathParam("ticketId") String ticketId, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        UUID id = RequestInput.pathId(ticketId, "ticket.not_found");
        JsonObject o = RequestInput.object(body, headers.getMediaType(), REPLY_FIELDS, limits);
        TicketReply r = tickets.reply(user.id(), team, id, RequestInput.nonNullString(o, "body"));
        return Response.status(Response.Status.CREATED).entity(SlaJson.ReplyJson.of(r)).build();
    }

    /** Issue 53: the ticket's replies, oldest first (keyset paging). */
    @GET
    @Path("{ticketId}/replies")
    @Operation(operationId = "listTicketReplies", summary = "List a ticket's replies, oldest first (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of replies", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketReplyPage")))
    public PageJson<SlaJson.ReplyJson> replies(@PathParam("teamId") String teamId, @PathParam("ticketId") String ticketId,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        UUID id = RequestInput.pathId(ticketId, "ticket.not_found");
        return PageJson.of(tickets.replies(user.id(), team, id, RequestInput.limit(limit), cursor), SlaJson.ReplyJson::of);
    }

    /** Issue 53 (R57): the ticket's SLA clocks now, for whoever may see the ticket. */
    @GET
    @Path("{ticketId}/sla")
    @Operation(operationId = "getTicketSla", summary = "Get a ticket's SLA: each promise's state, business time left and due instant")
    @APIResponse(responseCode = "200", description = "The ticket's clocks (none when its priority has no policy)", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TicketSla")))
    public SlaJson.TicketSlaJson sla(@PathParam("teamId") String teamId, @PathParam("ticketId") String ticketId) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        UUID id = RequestInput.pathId(ticketId, "ticket.not_found");
        return SlaJson.TicketSlaJson.of(slas.read(user.id(), team, id));
    }

    private static EntityTag etag(Ticket t) {
        return IfMatch.etag(t.getVersion());
    }

    /**
     * @return the version If-Match names ({@link IfMatch#version}): {@link TicketService#ANY_VERSION} for
     *         {@code *}, {@link TicketService#NO_VERSION} for only weak validators
     */
    static int version(String ifMatch) {
        return IfMatch.version(ifMatch, "ticket", TicketService.ANY_VERSION, TicketService.NO_VERSION);
    }
}
