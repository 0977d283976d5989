package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.Tool;
import jakarta.annotation.security.RolesAllowed;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Deny by default for MCP: a new tool that names no roles, or sits in a class the filter does not read, fails here. */
class ToolAccessTest {
    @Test
    void everyToolNamesItsRolesAndTheFilterKnowsIt() throws Exception {
        List<String> tools = new ArrayList<>();
        Path dir = Path.of("target/classes/io/streamhouse/api/mcp");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class") && !p.getFileName().toString().contains("$")).toList()) {
                Class<?> type = Class.forName("io.streamhouse.api.mcp." + f.getFileName().toString().replace(".class", ""));
                for (Method m : type.getDeclaredMethods()) {
                    Tool tool = m.getAnnotation(Tool.class);
                    if (tool != null) {
                        tools.add(tool.name());
                        assertThat(m.getAnnotation(RolesAllowed.class)).as("@RolesAllowed on tool %s", tool.name()).isNotNull();
                        assertThat(ToolAccess.TOOL_CLASSES).as("ToolAccess reads %s", type.getSimpleName()).contains(type);
                        assertThat(ToolAccess.rolesOf(tool.name())).as("roles of %s", tool.name()).isNotEmpty();
                    }
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list " + dir, e);
        }
        assertThat(tools).hasSizeGreaterThanOrEqualTo(10);
    }
}
