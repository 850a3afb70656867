package com.teamdesk.tasks.task.spi;

/**
 * R48 and R47 as a kind sees them: before each database statement of its body that starts new work, a background
 * body takes a permit of the instance's bound on background statements (R48, waiting in arrival order while the bound
 * is taken), then yields to urgent work (R47), and closes the permit when the statement is done. A kind asks its
 * {@link Execution} ({@link Execution#beginStatement()}), which the engine gives the instance's bound for a kind of
 * background priority and {@link #NONE} for an urgent one. An interrupt (cancel, R26's timeout) ends the wait at once
 * and stays set; the statement then runs without a permit and the next lease check sees the interrupt.
 */
@FunctionalInterface
public interface StatementPermits {
    /** Permits that hold nothing and wait for nothing: urgent kinds, and executions made without a bound (tests). */
    StatementPermits NONE = () -> Permit.NONE;

    /**
     * Waits for a permit (R48), then for urgent work (R47); returns at once when neither applies.
     *
     * @return the permit to close when the statement is done (try-with-resources); never null
     */
    Permit begin();

    /** A taken permit: {@link #close()} gives it back (once; later calls do nothing). */
    @FunctionalInterface
    interface Permit extends AutoCloseable {
        /** A permit that holds nothing: the bound is off, the kind is urgent, or the wait was interrupted. */
        Permit NONE = () -> {
        };

        @Override
        void close();
    }
}
