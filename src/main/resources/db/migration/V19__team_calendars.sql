-- Issue 53 (R55): a team's working time, for business-time promises (SLA clocks). One row per team; the shifts and
-- holidays are stored as the API shows them (checked by the application: BusinessCalendar). The version moves with
-- every change, so that what was computed from a calendar can tell it is stale.
CREATE TABLE team_calendar (
    team_id     uuid PRIMARY KEY REFERENCES team (id) ON DELETE CASCADE,
    zone        text NOT NULL,
    shifts      jsonb NOT NULL CHECK (jsonb_typeof(shifts) = 'array'),
    holidays    jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(holidays) = 'array'),
    version     integer NOT NULL DEFAULT 1 CHECK (version > 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    updated_by  uuid NOT NULL REFERENCES app_user(id)
);
