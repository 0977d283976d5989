package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * StatefulSet, Deployment and Service read into Kubernetes' own Java model (fabric8), strictly: a field the model does
 * not know (a typo, a field at the wrong level) lands in its additional properties and fails here with its path. Then
 * what the API server requires, and what makes them work together: selectors that match the pods, services whose
 * target ports the containers name, mounts of volumes that exist.
 */
class BuiltInResourcesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Pattern DNS_1123_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "apps/v1 StatefulSet", StatefulSet.class, "apps/v1 Deployment", Deployment.class, "v1 Service", Service.class,
            "batch/v1 Job", Job.class, "v1 ConfigMap", ConfigMap.class);

    @Test
    void everyBuiltInResourceReadsIntoKubernetesModelWithNoUnknownField() {
        List<String> wrong = new ArrayList<>();
        int read = 0;
        for (Manifests.Doc doc : Manifests.all()) {
            if (!CustomResourcesMatchTheirCrdsTest.BUILT_IN_API_VERSIONS.contains(doc.apiVersion())) {
                continue;
            }
            Class<? extends HasMetadata> type = KINDS.get(doc.apiVersion() + " " + doc.kind());
            if (type == null) {
                wrong.add(doc.where() + ": no model for " + doc.apiVersion() + " " + doc.kind());
                continue;
            }
            read++;
            wrong.addAll(unknownFields(doc, type));
        }
        assertThat(read).as("the StatefulSet, two Deployments, four Services, the lake's Job and its ConfigMap").isEqualTo(9);
        assertThat(wrong).isEmpty();
    }

    @Test
    void aMisspelledOrMisplacedFieldIsNamed() {
        Manifests.Doc api = Manifests.one("StatefulSet", "streamhouse-api");
        var copy = api.node().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) copy.path("spec").path("template").path("spec").path("containers").get(0)
                .path("readinessProbe")).put("periodSecond", 5);
        assertThat(unknownFields(new Manifests.Doc(api.file(), api.index(), copy), StatefulSet.class))
                .singleElement().asString().contains("spec.template.spec.containers[0].readinessProbe").contains("periodSecond");
    }

    @Test
    void theWorkloadsHaveWhatTheApiServerRequiresAndHoldTogether() throws Exception {
        List<String> wrong = new ArrayList<>();
        List<PodTemplateSpec> templates = new ArrayList<>();
        for (Manifests.Doc doc : Manifests.all()) {
            if (!CustomResourcesMatchTheirCrdsTest.BUILT_IN_API_VERSIONS.contains(doc.apiVersion())) {
                continue;
            }
            if (!DNS_1123_SUBDOMAIN.matcher(doc.name()).matches() || doc.name().length() > 63) {
                wrong.add(doc.where() + ": metadata.name is not a DNS-1123 label");
            }
        }
        for (Manifests.Doc doc : Manifests.ofKind("StatefulSet")) {
            StatefulSet s = MAPPER.treeToValue(doc.node(), StatefulSet.class);
            templates.add(s.getSpec().getTemplate());
            check(doc, s.getSpec().getSelector().getMatchLabels(), s.getSpec().getTemplate(), wrong);
            Service headless = MAPPER.treeToValue(Manifests.one("Service", s.getSpec().getServiceName()).node(), Service.class);
            if (!"None".equals(headless.getSpec().getClusterIP())) {
                wrong.add(doc.where() + ": spec.serviceName " + s.getSpec().getServiceName() + " is not a headless service");
            }
            Set<String> claims = new java.util.HashSet<>();
            s.getSpec().getVolumeClaimTemplates().forEach(c -> claims.add(c.getMetadata().getName()));
            mounts(doc, s.getSpec().getTemplate(), claims, wrong);
        }
        for (Manifests.Doc doc : Manifests.ofKind("Deployment")) {
            Deployment d = MAPPER.treeToValue(doc.node(), Deployment.class);
            templates.add(d.getSpec().getTemplate());
            check(doc, d.getSpec().getSelector().getMatchLabels(), d.getSpec().getTemplate(), wrong);
            mounts(doc, d.getSpec().getTemplate(), Set.of(), wrong);
        }
        for (Manifests.Doc doc : Manifests.ofKind("Job")) {
            Job j = MAPPER.treeToValue(doc.node(), Job.class);
            PodTemplateSpec t = j.getSpec().getTemplate();
            if (!List.of("Never", "OnFailure").contains(t.getSpec().getRestartPolicy())) {
                wrong.add(doc.where() + ": spec.template.spec.restartPolicy must be Never or OnFailure for a Job, is "
                        + t.getSpec().getRestartPolicy());
            }
            mounts(doc, t, Set.of(), wrong);
            for (var v : t.getSpec().getVolumes()) {
                if (v.getConfigMap() != null && Manifests.all().stream().noneMatch(d -> d.kind().equals("ConfigMap")
                        && d.name().equals(v.getConfigMap().getName()))) {
                    wrong.add(doc.where() + ": volume " + v.getName() + " names ConfigMap " + v.getConfigMap().getName() + ", which no manifest has");
                }
            }
        }
        for (Manifests.Doc doc : Manifests.ofKind("Service")) {
            Service svc = MAPPER.treeToValue(doc.node(), Service.class);
            List<PodTemplateSpec> selected = templates.stream().filter(t -> t.getMetadata().getLabels().entrySet()
                    .containsAll(svc.getSpec().getSelector().entrySet())).toList();
            if (selected.isEmpty()) {
                wrong.add(doc.where() + ": spec.selector " + svc.getSpec().getSelector() + " selects no pod template");
            }
            for (ServicePort port : svc.getSpec().getPorts()) {
                for (PodTemplateSpec t : selected) {
                    boolean named = t.getSpec().getContainers().stream().flatMap(c -> c.getPorts().stream())
                            .anyMatch(p -> p.getName().equals(port.getTargetPort().getStrVal()));
                    if (!named) {
                        wrong.add(doc.where() + ": targetPort " + port.getTargetPort() + " names no container port");
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static void check(Manifests.Doc doc, Map<String, String> selector, PodTemplateSpec template, List<String> wrong) {
        if (selector == null || selector.isEmpty() || !template.getMetadata().getLabels().entrySet().containsAll(selector.entrySet())) {
            wrong.add(doc.where() + ": spec.selector does not match the pod template's labels");
        }
        for (Container c : template.getSpec().getContainers()) {
            if (c.getImage() == null || c.getName() == null) {
                wrong.add(doc.where() + ": a container lacks its name or image");
            }
            for (ContainerPort p : c.getPorts()) {
                if (p.getName() == null || p.getContainerPort() == null) {
                    wrong.add(doc.where() + ": container " + c.getName() + " has an unnamed port");
                }
            }
        }
    }

    private static void mounts(Manifests.Doc doc, PodTemplateSpec template, Set<String> claims, List<String> wrong) {
        Set<String> volumes = new java.util.HashSet<>(claims);
        template.getSpec().getVolumes().stream().map(Volume::getName).forEach(volumes::add);
        for (Container c : template.getSpec().getContainers()) {
            for (VolumeMount m : c.getVolumeMounts()) {
                if (!volumes.contains(m.getName())) {
                    wrong.add(doc.where() + ": container " + c.getName() + " mounts " + m.getName() + ", which is no volume");
                }
            }
        }
    }

    /** The paths of every field the model did not know. */
    static List<String> unknownFields(Manifests.Doc doc, Class<?> type) {
        List<String> out = new ArrayList<>();
        Object model;
        try {
            model = MAPPER.treeToValue(doc.node(), type);
        } catch (Exception e) {
            return List.of(doc.where() + ": " + e.getMessage());
        }
        walk(model, "", out, doc.where(), new IdentityHashMap<>());
        return out;
    }

    private static void walk(Object o, String path, List<String> out, String where, IdentityHashMap<Object, Boolean> seen) {
        if (o == null || seen.put(o, true) != null) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object item : c) {
                walk(item, path + "[" + i++ + "]", out, where, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            m.forEach((k, v) -> walk(v, path + "." + k, out, where, seen));
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method getter : o.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(o);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            String field = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
            if (field.equals("additionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    out.add(where + ": " + (path.isEmpty() ? "(root)" : path.substring(1)) + ": unknown field(s) " + extra.keySet());
                }
            } else {
                walk(value, path + "." + field, out, where, seen);
            }
        }
    }
}
