package io.streamhouse.ingest.parcels;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.http.JsonFields;
import org.junit.jupiter.api.Test;

import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

class ParcelScanParserTest {
    static final ObjectMapper JSON = new ObjectMapper();
    final ParcelScanParser parser = new ParcelScanParser();

    static String scan(String status) {
        return """
                {"occurredAt": "2026-03-02T09:00:00Z", "status": "%s", "hubId": "%s",
                 "location": {"lat": 51.9244, "lon": 4.4777}, "promisedBy": "2026-03-03T18:00:00Z"}"""
                .formatted(status, Hubs.ROTTERDAM);
    }

    @Test
    void aScanIsKeyedByThePathsParcelIdAndItsIdIsDerivedFromParcelStatusAndTime() throws Exception {
        var fields = new JsonFields();
        var received = parser.parse("pcl-1", JSON.readTree(scan("RECEIVED_AT_HUB")), "", T0, fields);
        var again = parser.parse("pcl-1", JSON.readTree(scan("RECEIVED_AT_HUB")), "", T0.plusSeconds(9), fields);
        var sorted = parser.parse("pcl-1", JSON.readTree(scan("SORTED")), "", T0, fields);

        assertThat(fields.errors()).isEmpty();
        assertThat(received.key()).isEqualTo("pcl-1");
        assertThat(received.event().getStatus()).isEqualTo(ParcelStatus.RECEIVED_AT_HUB);
        assertThat(received.event().getHubId()).isEqualTo(Hubs.ROTTERDAM);
        assertThat(received.event().getPromisedBy()).isEqualTo(java.time.Instant.parse("2026-03-03T18:00:00Z"));
        assertThat(received.eventId()).isEqualTo(again.eventId()).isNotEqualTo(sorted.eventId());
    }

    @Test
    void aBadPathIdUnknownStatusAndUnknownFieldsAreAllNamed() throws Exception {
        var fields = new JsonFields();
        var s = parser.parse("bad id!", JSON.readTree("""
                {"occurredAt": "soon", "status": "UNKNOWN", "hubId": "", "location": {"lat": 100, "lon": 0}, "colour": "red"}"""),
                "", T0, fields);
        assertThat(s).isNull();
        assertThat(fields.errors()).extracting(FieldError::field).containsExactlyInAnyOrder(
                "parcelId", "occurredAt", "status", "hubId", "location.lat", "colour");
        assertThat(fields.errors()).filteredOn(e -> e.field().equals("status")).extracting(FieldError::message)
                .singleElement().asString().doesNotContain("UNKNOWN").contains("DELIVERED");
    }

    @Test
    void aScanOfABatchNamesItsParcelInTheBodyAndIsTheSameEventAsThePathsScan() throws Exception {
        var fields = new JsonFields();
        var json = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(scan("SORTED"));
        var byPath = parser.parse("pcl-7", json, "", T0, fields);
        var inBatch = parser.parseWithParcelId(json.deepCopy().put("parcelId", "pcl-7"), "[3]", T0, fields);
        assertThat(fields.errors()).isEmpty();
        assertThat(inBatch.key()).isEqualTo("pcl-7");
        assertThat(inBatch.eventId()).as("a scan sent either way is one event").isEqualTo(byPath.eventId());
        assertThat(inBatch.event()).isEqualTo(byPath.event());
    }

    @Test
    void aScanOfABatchWithoutAUsableParcelIdIsRefusedNamingItsItem() throws Exception {
        var fields = new JsonFields();
        assertThat(parser.parseWithParcelId(JSON.readTree(scan("SORTED")), "[0]", T0, fields)).isNull();
        var card = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(scan("SORTED"));
        assertThat(parser.parseWithParcelId(card.put("parcelId", "4111111111111111"), "[1]", T0, fields)).isNull();
        assertThat(fields.errors()).extracting(FieldError::field).containsExactly("[0].parcelId", "[1].parcelId");
        assertThat(fields.errors()).extracting(FieldError::message).noneMatch(m -> m.contains("4111111111111111"));
    }
}
