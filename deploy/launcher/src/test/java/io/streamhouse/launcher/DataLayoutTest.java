package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DataLayoutTest {

    @Test
    void aNewDirectoryAndOneOfThisLayoutStart(@TempDir Path data) throws Exception {
        assertThat(DataLayout.refusal(data)).isEmpty();
        DataLayout.write(data);
        assertThat(Files.readString(data.resolve(DataLayout.FILE)).strip()).isEqualTo(Integer.toString(DataLayout.CURRENT));
        assertThat(DataLayout.refusal(data)).isEmpty();
    }

    @Test
    void anOlderLayoutIsRefusedInOneLineNamingWhatChangedAndUpFresh(@TempDir Path data) throws Exception {
        DataLayout.write(data, 1);
        var refusal = DataLayout.refusal(data, 3, Map.of(2, "decisions are keyed by card", 3, "alerts carry a revision"));
        assertThat(refusal).hasValueSatisfying(line -> {
            assertThat(line.lines()).hasSize(1);
            assertThat(line).startsWith("The data directory " + data + " was written by an older Streamhouse (layout 1;"
                    + " this one needs layout 3: decisions are keyed by card; alerts carry a revision): start with"
                    + " ./streamhouse up --fresh");
        });
        assertThat(DataLayout.refusal(data, 1, Map.of())).isEmpty();
    }

    @Test
    void aNewerLayoutOrAFileThatIsNoNumberIsRefused(@TempDir Path data) throws Exception {
        DataLayout.write(data, DataLayout.CURRENT + 1);
        assertThat(DataLayout.refusal(data)).hasValueSatisfying(line -> assertThat(line)
                .contains("was written by a newer Streamhouse (layout " + (DataLayout.CURRENT + 1))
                .contains("./streamhouse up --fresh"));
        Files.writeString(data.resolve(DataLayout.FILE), "<html>\nnot a number\n");
        assertThat(DataLayout.refusal(data)).hasValueSatisfying(line -> assertThat(line)
                .contains("holding \"<html>\", not a layout number").hasLineCount(1));
    }
}
