-- Issue 54 (R60): email through a transactional outbox. A notification's transaction (a reminder's, a digest's, a batch
-- report's, an escalation's: fenced by its lease) also writes one outbox row per recipient and channel, in the same
-- statement; a relay on the worker delivers it afterwards under a lease of its own.

-- Where a member's email goes (NULL: none given), and which kinds' notifications they want by email (no row: yes).
ALTER TABLE app_user ADD COLUMN email text
    CHECK (email IS NULL OR (length(email) BETWEEN 3 AND 254 AND email ~ '^[^\s@]+@[^\s@]+$'));

CREATE TABLE notification_preference (
    user_id  uuid NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    kind     text NOT NULL CHECK (kind ~ '^[A-Z][A-Z0-9_]{0,31}$'),
    email    boolean NOT NULL,
    PRIMARY KEY (user_id, kind)
);

CREATE TABLE outbox_message (
    id               uuid PRIMARY KEY,
    notification_id  uuid NOT NULL REFERENCES notification (id) ON DELETE CASCADE,
    team_id          uuid NOT NULL REFERENCES team (id) ON DELETE CASCADE,
    recipient_id     uuid NOT NULL REFERENCES app_user (id),
    channel          text NOT NULL CHECK (channel IN ('EMAIL')),
    -- PENDING: to send; SENT; FAILED: refused for good or out of attempts; NO_ADDRESS, OPTED_OUT: decided when written,
    -- never sent (not a silent drop); DISCARDED: an operator gave up on it
    state            text NOT NULL CHECK (state IN ('PENDING', 'SENT', 'FAILED', 'NO_ADDRESS', 'OPTED_OUT', 'DISCARDED')),
    to_address       text,
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- sends whose outcome was lost after the message's final dot (R60: resent with the same Message-ID)
    unknowns         integer NOT NULL DEFAULT 0 CHECK (unknowns >= 0),
    next_attempt_at  timestamptz NOT NULL,
    -- the relay's lease: the fencing token of one claim, and until when it holds
    relay_lease      uuid,
    leased_until     timestamptz,
    last_error       text,
    server_reply     text,
    created_at       timestamptz NOT NULL,
    sent_at          timestamptz,
    updated_at       timestamptz NOT NULL,
    UNIQUE (notification_id, channel),
    CHECK ((relay_lease IS NULL) = (leased_until IS NULL)),
    CHECK (relay_lease IS NULL OR state = 'PENDING')
);
-- the relay's claim: due PENDING rows, oldest due first
CREATE INDEX outbox_message_due_idx ON outbox_message (next_attempt_at) WHERE state = 'PENDING';
-- a notification's deliveries, a team's outbox
CREATE INDEX outbox_message_team_idx ON outbox_message (team_id, created_at DESC);
