package com.teamdesk.tasks.team;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * Maps {@link Instant} attributes of the entities to {@code timestamptz} columns. EclipseLink 4.0
 * (Jakarta Persistence 3.1, bundled by Payara 6) has no built-in mapping for {@code Instant} (it
 * arrived with Persistence 3.2) and would serialize it to bytes. {@link Timestamp} is an instant
 * too, so the conversion is exact whatever the JVM's time zone.
 */
@Converter(autoApply = true)
public class InstantConverter implements AttributeConverter<Instant, Timestamp> {

    @Override
    public Timestamp convertToDatabaseColumn(Instant value) {
        return value == null ? null : Timestamp.from(value);
    }

    @Override
    public Instant convertToEntityAttribute(Timestamp value) {
        return value == null ? null : value.toInstant();
    }
}
