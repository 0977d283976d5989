package io.streamhouse.registry;

/** Avro schemas the registry tests share: one record evolving through versions, named for what changes. */
final class Schemas {

    static final String PARCEL_V1 = """
            {"type":"record","name":"Parcel","namespace":"io.streamhouse.test",
             "fields":[{"name":"id","type":"string"}]}""";

    /** Adds a field with a default: BACKWARD and FORWARD compatible with v1. */
    static final String PARCEL_V2_WITH_DEFAULT = """
            {"type":"record","name":"Parcel","namespace":"io.streamhouse.test",
             "fields":[{"name":"id","type":"string"},{"name":"hub","type":"string","default":"unknown"}]}""";

    /** Adds a field without a default: a v2 reader cannot read v1 data (not BACKWARD), v1 can read it (FORWARD). */
    static final String PARCEL_V2_WITHOUT_DEFAULT = """
            {"type":"record","name":"Parcel","namespace":"io.streamhouse.test",
             "fields":[{"name":"id","type":"string"},{"name":"hub","type":"string"}]}""";

    /** Drops {@code hub}'s default: readable from v2 data, not from v1 data. */
    static final String PARCEL_V3_HUB_REQUIRED = PARCEL_V2_WITHOUT_DEFAULT;

    /** Same as v1 in another layout: the same schema, so the same id. */
    static final String PARCEL_V1_REFORMATTED = """
            {
              "namespace" : "io.streamhouse.test",
              "type" : "record",
              "name" : "Parcel",
              "fields" : [ { "type" : "string", "name" : "id" } ]
            }""";

    static final String HUB = """
            {"type":"record","name":"Hub","namespace":"io.streamhouse.test",
             "fields":[{"name":"code","type":"string"}]}""";

    static final String SCAN = """
            {"type":"record","name":"Scan","namespace":"io.streamhouse.test",
             "fields":[{"name":"parcel","type":"string"},{"name":"weightGrams","type":"int"}]}""";

    private Schemas() {
    }
}
