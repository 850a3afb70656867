-- Issue 29: a task kind is the name its handler declares; the application checks it against the
-- registered handlers, so the table no longer lists the kinds (a new kind needs no migration). The
-- column keeps only the form of a name.
ALTER TABLE background_task DROP CONSTRAINT background_task_kind_check;
ALTER TABLE background_task ADD CONSTRAINT background_task_kind_name CHECK (kind ~ '^[A-Z][A-Z0-9_]{0,31}$');
