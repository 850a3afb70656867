package com.teamdesk.tasks.it.worker;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Captures the formatted messages a {@code java.util.logging} logger writes (e.g. the production
 * {@code TaskQueueListener}'s {@code task.failed} lines) while it is open. Close it in finally.
 */
public final class LogCapture extends Handler implements AutoCloseable {
    private final Logger logger;
    private final SimpleFormatter formatter = new SimpleFormatter();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
    }

    /** Starts capturing what the logger named after {@code owner} writes. */
    public static LogCapture on(Class<?> owner) {
        LogCapture c = new LogCapture(Logger.getLogger(owner.getName()));
        c.logger.addHandler(c);
        return c;
    }

    @Override
    public void publish(LogRecord r) {
        lines.add(formatter.formatMessage(r));
    }

    /** @return the captured lines that contain every one of {@code parts}, in order */
    public List<String> lines(String... parts) {
        return lines.stream().filter(l -> {
            for (String p : parts) {
                if (!l.contains(p)) {
                    return false;
                }
            }
            return true;
        }).toList();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
