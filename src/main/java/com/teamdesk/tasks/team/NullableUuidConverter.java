package com.teamdesk.tasks.team;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.util.UUID;

/**
 * Identity mapping for a nullable {@code uuid} column. EclipseLink 4.0's built-in UUID converter
 * throws a NullPointerException on SQL NULL (e.g. an unassigned ticket's {@code assignee_id});
 * naming this converter on the attribute replaces it.
 */
@Converter
public class NullableUuidConverter implements AttributeConverter<UUID, UUID> {

    @Override
    public UUID convertToDatabaseColumn(UUID value) {
        return value;
    }

    @Override
    public UUID convertToEntityAttribute(UUID value) {
        return value;
    }
}
