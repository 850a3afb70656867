package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.team.calendar.TeamCalendars;
import com.teamdesk.tasks.team.sla.SlaPolicies;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Discriminator;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * What the OpenAPI document at {@code /openapi} says beyond the resources' annotations (issue 50), applied once
 * to the model Payara builds from them (MicroProfile OpenAPI's {@code mp.openapi.filter}):
 * <ul>
 * <li><b>the refusals</b>: one {@code Problem} schema (RFC 9457 with this API's {@code code}) and one response per
 * status; every operation declares the refusals it can answer (401, 403, 406, 503 always; 400 with parameters or a
 * body; 404 with an id in its path; 413 and 415 with a body; its own 409, 410, 412, 422, 428, 429) and a
 * {@code default} problem for anything else;</li>
 * <li><b>the kinds' create bodies</b>: {@code TaskCreate} is a {@code oneOf} of one schema per registered kind,
 * discriminated by {@code kind}, built from each kind's {@link RequestField}s, so that a new kind appears in the
 * contract without a change here;</li>
 * <li><b>exact types</b>: ids are {@code format: uuid} and instants {@code date-time} where the scanner made
 * references of them, enums are strings, {@code limit} is an integer 1-500, and every property of an answer may be
 * {@code null} (the API writes absent values as {@code null});</li>
 * <li><b>no unknown properties</b>: Payara's own {@code endpoints} list at the root is dropped.</li>
 * </ul>
 * Runs when the document is first asked for, inside the application (the kinds come from CDI). Never throws: a
 * step that fails is logged and the document is served without it.
 *
 * <p>Why one class of about 500 lines: the OpenAPI document is rewritten in one pass of named steps ({@code
 * step(name, ...)}) whose order matters (problems before refusals, kinds before types); split, the steps would share
 * the components through fields of several classes.
 */
public class ContractFilter implements OASFilter {
    private static final Logger LOG = Logger.getLogger(ContractFilter.class.getName());
    private static final String SCHEMAS = "#/components/schemas/";
    /** Types the scanner turned into components; inlined so that a property of such a type may be null. */
    private static final Map<String, String[]> INLINED = Map.of("UUID", new String[] {"string", "uuid"},
            "Instant", new String[] {"string", "date-time"}, "OffsetDateTime", new String[] {"string", "date-time"},
            "URI", new String[] {"string", null});
    /** Status → the name of its response component and its reason phrase. */
    private static final Map<String, String[]> REFUSALS = new LinkedHashMap<>();

    static {
        REFUSALS.put("400", new String[] {"BadRequest", "Bad input: a malformed body, parameter or header"});
        REFUSALS.put("401", new String[] {"Unauthorized", "No valid bearer token"});
        REFUSALS.put("403", new String[] {"Forbidden", "The caller's role, scope or token group does not allow it"});
        REFUSALS.put("404", new String[] {"NotFound", "No such resource visible to the caller"});
        REFUSALS.put("406", new String[] {"NotAcceptable", "The Accept header names no type this operation answers"});
        REFUSALS.put("409", new String[] {"Conflict", "Not in a state that allows it"});
        REFUSALS.put("410", new String[] {"Gone", "It existed and is gone (an expired file)"});
        REFUSALS.put("412", new String[] {"PreconditionFailed", "If-Match names another version"});
        REFUSALS.put("413", new String[] {"ContentTooLarge", "The body is over the limit (1 MiB)"});
        REFUSALS.put("415", new String[] {"UnsupportedMediaType", "The body is not application/json in UTF-8"});
        REFUSALS.put("422", new String[] {"UnprocessableContent", "Well-formed but refused (a limit, a reused key)"});
        REFUSALS.put("428", new String[] {"PreconditionRequired", "If-Match is required"});
        REFUSALS.put("429", new String[] {"TooManyRequests", "Over a limit; Retry-After says when to try again"});
        REFUSALS.put("503", new String[] {"ServiceUnavailable", "The database or Redis is out of reach;"
                + " Retry-After says when to try again"});
    }

    /** The refusals of an operation besides the ones every operation of its shape has. */
    private static final Map<String, List<String>> OWN_REFUSALS = Map.ofEntries(
            Map.entry("createTeamTask", List.of("409", "422", "429")),
            Map.entry("createTeamBatch", List.of("409", "422", "429")),
            Map.entry("cancelBatch", List.of("409")),
            Map.entry("retryTask", List.of("409", "422")),
            Map.entry("cancelTask", List.of("409", "422")),
            Map.entry("getTaskResult", List.of("409", "410")),
            Map.entry("followTask", List.of("429")),
            Map.entry("followTeamTasks", List.of("429")),
            Map.entry("createTeamSchedule", List.of("409", "422")),
            Map.entry("updateSchedule", List.of("409", "412", "422", "428")),
            Map.entry("resumeSchedule", List.of("409", "422")),
            Map.entry("runScheduleNow", List.of("409")),
            Map.entry("updateTicket", List.of("409", "412", "428")),
            Map.entry("pauseTimer", List.of("409")),
            Map.entry("resumeTimer", List.of("409")),
            Map.entry("runTimer", List.of("409")),
            Map.entry("putTeamCalendar", List.of("412")),
            Map.entry("importTeamHolidays", List.of("412")));

    /** Operations that honour {@code Idempotency-Key} (R25); a method-level {@code @Parameter} is lost by Payara. */
    private static final Set<String> IDEMPOTENT = Set.of("createTeamTask", "retryTask", "cancelTask", "createTeamSchedule",
            "createTeamBatch");

    /** The codes docs/api.md documents, as the {@code code} property's description lists them. */
    static final List<String> CODES = List.of("request.malformed", "request.header_invalid", "request.header_too_large",
            "request.query_invalid", "request.path_invalid", "request.too_large", "request.unsupported_media_type",
            "request.not_acceptable", "request.method_not_allowed", "request.uri_too_long", "request.rejected",
            "auth.required", "auth.forbidden", "page.limit", "page.cursor", "filters.invalid", "team.not_found",
            "team.staff_only", "ticket.not_found", "ticket.invalid", "ticket.assignee_invalid", "ticket.staff_only",
            "ticket.version_mismatch", "ticket.if_match_required", "ticket.if_match_invalid", "task.not_found",
            "task.invalid", "task.scope_forbidden", "task.run_at_invalid", "task.not_failed", "task.not_cancellable",
            "task.not_completed", "export.expired", "reminder.invalid", "reminder.no_assignee",
            "reminder.ticket_closed", "idempotency.key_invalid", "idempotency.key_reused", "idempotency.in_progress",
            "events.too_many_streams", "events.last_event_id", "schedule.not_found", "schedule.invalid",
            "schedule.cron_invalid", "schedule.zone_invalid", "schedule.too_frequent", "schedule.too_many",
            "schedule.staff_only", "schedule.owner_left", "schedule.kind_gone", "schedule.version_mismatch",
            "schedule.if_match_required", "schedule.if_match_invalid", "schedule.run_now", "timer.not_found",
            "timer.busy", "admin.retry_limit", "limits.invalid", "resource.not_found", "service.unavailable",
            "internal", "batch.not_found", "batch.invalid", "batch.finished", "task.after_invalid", "task.after_cycle",
            "task.after_too_deep", "task.prerequisite_not_found", "task.prerequisite_ended", "task.completion_only",
            "task.system_only", "settings.invalid", "settings.email_invalid");

    @Override
    public void filterOpenAPI(OpenAPI api) {
        step("drop Payara's endpoints", () -> dropEndpoints(api));
        Components components = api.getComponents() == null ? OASFactory.createComponents() : api.getComponents();
        api.setComponents(components);
        step("tags", () -> tags(api));
        step("problems", () -> problems(components));
        step("kinds", () -> kinds(components));
        step("types", () -> types(api, components));
        step("refusals", () -> refusals(api));
        step("annotation defaults", () -> everySchema(api, ContractFilter::clean));
    }

    /**
     * Payara 6 copies the defaults of a {@code @Schema} annotation into the model ({@code maxProperties: 0},
     * {@code minLength: 0}, {@code readOnly: false}, …); {@code maxProperties: 0} would even refuse every object.
     * Takes them out again: none of them is ever meant in this API.
     */
    private static void clean(Schema s) {
        if (Integer.valueOf(0).equals(s.getMaxProperties())) {
            s.setMaxProperties(null);
        }
        if (Integer.valueOf(0).equals(s.getMinProperties())) {
            s.setMinProperties(null);
        }
        if (Integer.valueOf(0).equals(s.getMinLength())) {
            s.setMinLength(null);
        }
        if (Integer.valueOf(0).equals(s.getMinItems())) {
            s.setMinItems(null);
        }
        if (Integer.valueOf(Integer.MAX_VALUE).equals(s.getMaxItems())) {
            s.setMaxItems(null);
        }
        if (Integer.valueOf(Integer.MAX_VALUE).equals(s.getMaxLength())) {
            s.setMaxLength(null);
        }
        if (Boolean.FALSE.equals(s.getExclusiveMaximum())) {
            s.setExclusiveMaximum(null);
        }
        if (Boolean.FALSE.equals(s.getExclusiveMinimum())) {
            s.setExclusiveMinimum(null);
        }
        if (Boolean.FALSE.equals(s.getUniqueItems())) {
            s.setUniqueItems(null);
        }
        if (Boolean.FALSE.equals(s.getReadOnly())) {
            s.setReadOnly(null);
        }
        if (Boolean.FALSE.equals(s.getWriteOnly())) {
            s.setWriteOnly(null);
        }
        if (Boolean.FALSE.equals(s.getDeprecated())) {
            s.setDeprecated(null);
        }
        if (Boolean.FALSE.equals(s.getNullable())) {
            s.setNullable(null);
        }
    }

    /** As {@link #clean}: a response header's copied defaults (and {@code allowEmptyValue}, a query's trait). */
    private static void cleanHeader(Header h) {
        if (Boolean.FALSE.equals(h.getRequired())) {
            h.setRequired(null);
        }
        if (Boolean.FALSE.equals(h.getDeprecated())) {
            h.setDeprecated(null);
        }
        h.setAllowEmptyValue(null);
    }

    /** Calls {@code action} on every schema of the document, nested ones included. */
    private static void everySchema(OpenAPI api, java.util.function.Consumer<Schema> action) {
        java.util.function.Consumer<Schema> walk = new java.util.function.Consumer<>() {
            @Override
            public void accept(Schema s) {
                if (s == null) {
                    return;
                }
                action.accept(s);
                if (s.getProperties() != null) {
                    s.getProperties().values().forEach(this);
                }
                accept(s.getItems());
                accept(s.getAdditionalPropertiesSchema());
                accept(s.getNot());
                for (List<Schema> all : java.util.Arrays.asList(s.getAllOf(), s.getAnyOf(), s.getOneOf())) {
                    if (all != null) {
                        all.forEach(this);
                    }
                }
            }
        };
        if (api.getComponents() != null && api.getComponents().getSchemas() != null) {
            api.getComponents().getSchemas().values().forEach(walk);
        }
        if (api.getPaths() == null || api.getPaths().getPathItems() == null) {
            return;
        }
        api.getPaths().getPathItems().values().forEach(item -> item.getOperations().values().forEach(op -> {
            List<org.eclipse.microprofile.openapi.models.media.Content> contents = new ArrayList<>();
            if (op.getRequestBody() != null) {
                contents.add(op.getRequestBody().getContent());
            }
            if (op.getResponses() != null && op.getResponses().getAPIResponses() != null) {
                op.getResponses().getAPIResponses().values().forEach(r -> {
                    contents.add(r.getContent());
                    if (r.getHeaders() != null) {
                        r.getHeaders().values().forEach(h -> {
                            cleanHeader(h);
                            walk.accept(h.getSchema());
                        });
                    }
                });
            }
            if (op.getParameters() != null) {
                op.getParameters().forEach(p -> walk.accept(p.getSchema()));
            }
            contents.stream().filter(c -> c != null && c.getMediaTypes() != null)
                    .forEach(c -> c.getMediaTypes().values().forEach(m -> walk.accept(m.getSchema())));
        }));
    }

    private static void step(String name, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "The OpenAPI document is served without its step '" + name + "'", e);
        }
    }

    /** Payara 6 adds a root property {@code endpoints} that OpenAPI does not define (prefixed x- only in 2026). */
    private static void dropEndpoints(OpenAPI api) {
        try {
            api.getClass().getMethod("setEndpoints", Map.class).invoke(api, new LinkedHashMap<String, Set<String>>());
        } catch (ReflectiveOperationException e) {
            LOG.fine(() -> "no Payara endpoints to drop: " + e);
        }
    }

    private static void tags(OpenAPI api) {
        api.setTags(new ArrayList<>(List.of(
                OASFactory.createTag().name("tasks").description("Background tasks of a team: create, follow, retry,"
                        + " cancel, download; the registered kinds"),
                OASFactory.createTag().name("schedules").description("Recurring tasks: cron and time zone"),
                OASFactory.createTag().name("tickets").description("A team's tickets"),
                OASFactory.createTag().name("members").description("The caller, their notifications, a team's events"),
                OASFactory.createTag().name("operators").description("The engine across teams; only tokens whose"
                        + " groups contain operator"))));
    }

    private static void problems(Components c) {
        Schema text = OASFactory.createSchema().type(Schema.SchemaType.STRING);
        c.addSchema("Problem", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("An RFC 9457 problem detail; every refusal of this API is one")
                .addProperty("type", OASFactory.createSchema().type(Schema.SchemaType.STRING).format("uri")
                        .description("https://teamdesk.dev/problems/<code>"))
                .addProperty("title", text)
                .addProperty("status", OASFactory.createSchema().type(Schema.SchemaType.INTEGER).minimum(
                        new BigDecimal(400)).maximum(new BigDecimal(599)))
                .addProperty("detail", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                        .description("For people; never a stack trace"))
                .addProperty("instance", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                        .description("The request's path"))
                .addProperty("code", OASFactory.createSchema().type(Schema.SchemaType.STRING).pattern("^[a-z_]+(\\.[a-z_]+)?$")
                        .description("Stable, for programs. A client must accept codes it does not know (new ones are"
                                + " added, so this is not an enum). Documented: " + String.join(", ", CODES) + "."))
                .required(List.of("type", "title", "status", "detail", "code")));
        Header retryAfter = OASFactory.createHeader().description("Seconds to wait before trying again")
                .schema(OASFactory.createSchema().type(Schema.SchemaType.INTEGER));
        REFUSALS.forEach((status, what) -> {
            APIResponse r = OASFactory.createAPIResponse().description(what[1]).content(problemContent());
            if (status.equals("429") || status.equals("503")) {
                r.addHeader("Retry-After", retryAfter);
            }
            if (status.equals("401")) {
                r.addHeader("WWW-Authenticate", OASFactory.createHeader()
                        .schema(OASFactory.createSchema().type(Schema.SchemaType.STRING)));
            }
            c.addResponse(what[0], r);
        });
    }

    private static org.eclipse.microprofile.openapi.models.media.Content problemContent() {
        return OASFactory.createContent().addMediaType("application/problem+json", OASFactory.createMediaType()
                .schema(OASFactory.createSchema().ref("Problem")));
    }

    /** {@code TaskCreate}: one body per registered kind, from its fields, discriminated by {@code kind}. */
    private static void kinds(Components c) {
        TaskKinds kinds = CDI.current().select(TaskKinds.class).get();
        Discriminator by = OASFactory.createDiscriminator().propertyName("kind");
        Schema create = OASFactory.createSchema().discriminator(by)
                .description("A task's create body: the fields of its kind (GET /api/v1/kinds lists the kinds)");
        for (TaskKind kind : new TreeSet<>(kinds.kinds())) {
            TaskKindHandler<?> h = kinds.handler(kind);
            if (h.systemOnly()) {
                continue; // R59: no client asks for it
            }
            String name = bodyName(kind);
            List<String> required = new ArrayList<>(List.of("kind"));
            Schema body = OASFactory.createSchema().type(Schema.SchemaType.OBJECT).description(h.info().label())
                    // a plain string: the discriminator's mapping names the value, and a one-value enum here made the
                    // generated Java client's getKind() clash with the interface's (openapi-generator 7.25)
                    .addProperty("kind", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                            .description("\"" + kind.name() + "\""))
                    .addProperty("runAt", OASFactory.createSchema().type(Schema.SchemaType.STRING).format("date-time")
                            .description("Not before this instant (R24), ISO-8601 with an offset, at most a year ahead;"
                                    + " absent: now"))
                    .addProperty("after", OASFactory.createSchema().type(Schema.SchemaType.ARRAY)
                            .items(OASFactory.createSchema().type(Schema.SchemaType.STRING).format("uuid"))
                            .description("R53: tasks of the same team this one waits for (in a batch also the indexes,"
                                    + " as numbers, of other items); it is not dispatched before they all completed"))
                    .addProperty("afterFailure", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                            .enumeration(List.of("CANCEL", "RUN")).description("R53: when a task it waits for failed for"
                                    + " good or was cancelled: CANCEL (default: cancelled with that cause) or RUN"));
            for (RequestField f : h.requestFields()) {
                body.addProperty(f.name(), f.schema() == null
                        ? OASFactory.createSchema().type(f.object() ? Schema.SchemaType.OBJECT : Schema.SchemaType.STRING)
                        : schema(read(f.schema())));
                if (f.required()) {
                    required.add(f.name());
                }
            }
            body.required(required);
            c.addSchema(name, body);
            create.addOneOf(OASFactory.createSchema().ref(name));
            by.addMapping(kind.name(), SCHEMAS + name);
        }
        c.addSchema("TaskCreate", create);
        c.addSchema("BatchCreate", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("Issue 52 (R51): many tasks as one, all or none, with an optional completion")
                .addProperty("label", OASFactory.createSchema().type(Schema.SchemaType.STRING).maxLength(200))
                .addProperty("items", OASFactory.createSchema().type(Schema.SchemaType.ARRAY).minItems(1)
                        .maxItems(1000).items(OASFactory.createSchema().ref("TaskCreate"))
                        .description("The children: task bodies, each with after and afterFailure if it waits"))
                .addProperty("completion", OASFactory.createSchema().ref("TaskCreate")
                        .description("Runs once when every child has ended (R52); e.g. {\"kind\": \"BATCH_REPORT\"}"))
                .addProperty("onChildFailure", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                        .enumeration(List.of("CONTINUE", "CANCEL_REST")).defaultValue("CONTINUE"))
                .addProperty("completionWhenCancelled", OASFactory.createSchema().type(Schema.SchemaType.BOOLEAN)
                        .defaultValue(Boolean.FALSE))
                .required(List.of("items")));
        Schema time = OASFactory.createSchema().type(Schema.SchemaType.STRING).pattern("^([01][0-9]|2[0-3]):[0-5][0-9]$");
        Schema date = OASFactory.createSchema().type(Schema.SchemaType.STRING).format("date");
        c.addSchema("CalendarPut", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("Issue 53 (R55): a team's whole calendar")
                .addProperty("zone", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                        .description("An IANA time zone, e.g. Europe/Berlin"))
                .addProperty("shifts", OASFactory.createSchema().type(Schema.SchemaType.ARRAY).minItems(1)
                        .maxItems(TeamCalendars.MAX_SHIFTS).items(OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                                .addProperty("day", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                                        .enumeration(List.of("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY",
                                                "SATURDAY", "SUNDAY")))
                                .addProperty("start", time).addProperty("end", time)
                                .required(List.of("day", "start", "end")))
                        .description("Working intervals; an end not after its start runs overnight"))
                .addProperty("holidays", OASFactory.createSchema().type(Schema.SchemaType.ARRAY)
                        .maxItems(TeamCalendars.MAX_HOLIDAYS).items(OASFactory.createSchema()
                                .type(Schema.SchemaType.OBJECT).addProperty("first", date).addProperty("last", date)
                                .addProperty("name", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                                        .maxLength(TeamCalendars.MAX_NAME))
                                .required(List.of("first"))))
                .required(List.of("zone", "shifts")));
        Schema minutes = OASFactory.createSchema().type(Schema.SchemaType.INTEGER).minimum(java.math.BigDecimal.ONE)
                .maximum(java.math.BigDecimal.valueOf(SlaPolicies.MAX_MINUTES));
        c.addSchema("SlaPoliciesPut", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("Issue 53 (R56): the team's promises, one per priority; a priority not named has none")
                .addProperty("policies", OASFactory.createSchema().type(Schema.SchemaType.ARRAY).maxItems(4)
                        .items(OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                                .addProperty("priority", OASFactory.createSchema().type(Schema.SchemaType.STRING)
                                        .enumeration(List.of("LOW", "NORMAL", "HIGH", "URGENT")))
                                .addProperty("firstResponseMinutes", minutes).addProperty("resolutionMinutes", minutes)
                                .addProperty("warnPercent", OASFactory.createSchema().type(Schema.SchemaType.INTEGER)
                                        .minimum(java.math.BigDecimal.ONE).maximum(java.math.BigDecimal.valueOf(99))
                                        .defaultValue(75))
                                .required(List.of("priority", "firstResponseMinutes", "resolutionMinutes"))))
                .required(List.of("policies")));
        c.addSchema("EmailSettingsPut", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("Issue 54 (R60): the caller's email address and which task kinds' notifications come by"
                        + " email (a kind not named: yes)")
                .addProperty("email", OASFactory.createSchema().type(Schema.SchemaType.STRING).nullable(true)
                        .format("email").maxLength(com.teamdesk.tasks.team.EmailSettings.MAX_EMAIL))
                .addProperty("kinds", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                        .maxProperties(com.teamdesk.tasks.team.EmailSettings.MAX_KINDS)
                        .additionalPropertiesSchema(OASFactory.createSchema().type(Schema.SchemaType.BOOLEAN))));
        c.addSchema("ReplyCreate", OASFactory.createSchema().type(Schema.SchemaType.OBJECT)
                .description("Issue 53 (R57): a reply on a ticket")
                .addProperty("body", OASFactory.createSchema().type(Schema.SchemaType.STRING).minLength(1)
                        .maxLength(20_000))
                .required(List.of("body")));
    }

    /** @return {@code ExportTaskCreate} for EXPORT, {@code SlaEscalationTaskCreate} for SLA_ESCALATION */
    static String bodyName(TaskKind kind) {
        StringBuilder b = new StringBuilder();
        for (String part : kind.name().split("_")) {
            if (!part.isEmpty()) {
                b.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
            }
        }
        return b.append("TaskCreate").toString();
    }

    private static JsonObject read(String json) {
        try (var r = Jsons.PROVIDER.createReader(new StringReader(json))) {
            return r.readObject();
        }
    }

    /** The keys of a kind's field schema that {@link #schema(JsonObject)} reads; any other is refused. */
    static final Set<String> SCHEMA_KEYS = Set.of("type", "format", "description", "enum", "default", "example",
            "minLength", "maxLength", "items", "properties");

    /** @return the OpenAPI model of a kind's JSON Schema text ({@link RequestField#schema()}) */
    static Schema schema(JsonObject o) {
        Schema s = OASFactory.createSchema();
        o.forEach((key, v) -> {
            switch (key) {
                case "type" -> s.type(Schema.SchemaType.valueOf(((JsonString) v).getString().toUpperCase(Locale.ROOT)));
                case "format" -> s.format(((JsonString) v).getString());
                case "description" -> s.description(((JsonString) v).getString());
                case "enum" -> s.enumeration(((JsonArray) v).getValuesAs(JsonString.class).stream()
                        .map(x -> (Object) x.getString()).toList());
                case "default" -> s.defaultValue(plain(v));
                case "example" -> s.example(plain(v));
                case "minLength" -> s.minLength(((JsonNumber) v).intValue());
                case "maxLength" -> s.maxLength(((JsonNumber) v).intValue());
                case "items" -> s.items(schema(v.asJsonObject()));
                case "properties" -> v.asJsonObject().forEach((p, ps) -> s.addProperty(p, schema(ps.asJsonObject())));
                default -> throw new IllegalArgumentException("A kind's field schema uses '" + key + "', which"
                        + " ContractFilter does not read");
            }
        });
        return s;
    }

    private static Object plain(JsonValue v) {
        return v instanceof JsonString s ? s.getString() : v.toString();
    }

    /** Inlines ids and instants, types enums, makes answers' properties nullable, types path ids and limit. */
    private static void types(OpenAPI api, Components c) {
        Map<String, Schema> schemas = c.getSchemas() == null ? Map.of() : new LinkedHashMap<>(c.getSchemas());
        for (String inlined : INLINED.keySet()) {
            c.removeSchema(inlined);
        }
        c.removeSchema("PageJson");
        schemas.forEach((name, s) -> {
            if (s.getEnumeration() != null && !s.getEnumeration().isEmpty()) {
                // an enum is a string, and where an answer has none it says null (a skipped slot's status)
                s.setType(Schema.SchemaType.STRING);
                s.setNullable(true);
            }
            boolean answer = !name.endsWith("TaskCreate") && !name.equals("BatchCreate") && !name.equals("CalendarPut")
                    && !name.equals("SlaPoliciesPut") && !name.equals("ReplyCreate") && !name.equals("EmailSettingsPut")
                    && !name.equals("Problem");
            if (s.getProperties() != null) {
                Map<String, Schema> props = new LinkedHashMap<>();
                s.getProperties().forEach((p, ps) -> props.put(p, property(ps, answer)));
                s.setProperties(props);
            }
        });
        if (api.getPaths() == null || api.getPaths().getPathItems() == null) {
            return;
        }
        api.getPaths().getPathItems().forEach((path, item) -> item.getOperations().forEach((method, op) -> {
            if (IDEMPOTENT.contains(op.getOperationId())) {
                op.addParameter(OASFactory.createParameter().name("Idempotency-Key").in(Parameter.In.HEADER)
                        .description("R25: the request is carried out at most once per key; a repeat answers as the"
                                + " first did, with Idempotent-Replayed: true")
                        .schema(OASFactory.createSchema().type(Schema.SchemaType.STRING).minLength(1)
                                .maxLength(IdempotentRequest.MAX_KEY)));
            }
            if (op.getParameters() != null) {
                op.getParameters().forEach(p -> parameter(p, OWN_REFUSALS.getOrDefault(op.getOperationId(), List.of())
                        .contains("428")));
            }
            if (op.getResponses() != null && op.getResponses().getAPIResponses() != null) {
                op.getResponses().getAPIResponses().values().forEach(r -> {
                    if (r.getContent() != null && r.getContent().getMediaTypes() != null) {
                        r.getContent().getMediaTypes().forEach((type, m) -> {
                            if (type.startsWith("text/")) { // a stream or a file: text, whatever the scanner guessed
                                m.setSchema(OASFactory.createSchema().type(Schema.SchemaType.STRING));
                            } else if (m.getSchema() != null) {
                                m.setSchema(inline(m.getSchema()));
                            }
                        });
                    }
                });
            }
        }));
    }

    /** @return a property's schema with ids and instants inlined; nullable in an answer (JSON-B writes nulls) */
    private static Schema property(Schema s, boolean answer) {
        Schema p = inline(s);
        if (p.getItems() != null) {
            p.setItems(inline(p.getItems()));
        }
        if (!answer) {
            return p;
        }
        // a reference stays one (OpenAPI 3.0 ignores a $ref's siblings): enums are nullable themselves, and no
        // answer has a null object where one of ours is declared
        return p.getRef() != null ? p : p.nullable(true);
    }

    private static Schema inline(Schema s) {
        String ref = s.getRef();
        if (ref != null && ref.startsWith(SCHEMAS) && INLINED.containsKey(ref.substring(SCHEMAS.length()))) {
            String[] t = INLINED.get(ref.substring(SCHEMAS.length()));
            Schema out = OASFactory.createSchema().type(Schema.SchemaType.STRING);
            return t[1] == null ? out : out.format(t[1]);
        }
        return s;
    }

    /** @param ifMatchRequired the operation answers 428 without If-Match (where it is optional, it is not required) */
    private static void parameter(Parameter p, boolean ifMatchRequired) {
        if (p.getIn() == Parameter.In.PATH && p.getName().endsWith("Id")) {
            p.setSchema(OASFactory.createSchema().type(Schema.SchemaType.STRING).format("uuid"));
        } else if (p.getIn() == Parameter.In.QUERY && p.getName().equals("limit")) {
            p.setSchema(OASFactory.createSchema().type(Schema.SchemaType.INTEGER).minimum(BigDecimal.ONE)
                    .maximum(new BigDecimal(500)).defaultValue(50));
        } else if (p.getIn() == Parameter.In.HEADER && p.getName().equals("If-Match")) {
            p.setRequired(ifMatchRequired);
        }
    }

    /** Adds to every operation the refusals it can answer, and a {@code default} problem. */
    private static void refusals(OpenAPI api) {
        if (api.getPaths() == null || api.getPaths().getPathItems() == null) {
            return;
        }
        api.getPaths().getPathItems().forEach((path, item) -> item.getOperations().forEach((method, op) -> {
            Set<String> statuses = new TreeSet<>(List.of("401", "403", "406", "503"));
            boolean body = op.getRequestBody() != null;
            boolean params = op.getParameters() != null && op.getParameters().stream()
                    .anyMatch(p -> p.getIn() != Parameter.In.PATH);
            if (body || params) {
                statuses.add("400");
            }
            if (path.contains("{")) {
                statuses.add("404");
            }
            if (body) {
                statuses.add("413");
                statuses.add("415");
            }
            statuses.addAll(OWN_REFUSALS.getOrDefault(op.getOperationId(), List.of()));
            APIResponses responses = op.getResponses() == null ? OASFactory.createAPIResponses() : op.getResponses();
            for (String status : statuses) {
                if (!responses.hasAPIResponse(status)) {
                    responses.addAPIResponse(status, OASFactory.createAPIResponse().ref(REFUSALS.get(status)[0]));
                }
            }
            responses.setDefaultValue(OASFactory.createAPIResponse().description("Any other refusal")
                    .content(problemContent()));
            op.setResponses(responses);
            if (path.startsWith("/api/v1/admin/")) {
                op.addExtension("x-required-group", "operator");
            }
        }));
    }
}
