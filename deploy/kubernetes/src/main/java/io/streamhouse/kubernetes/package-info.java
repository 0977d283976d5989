/**
 * Kubernetes manifests of the stack (docs/kubernetes.md): the generator of the Strimzi topics and users from the topic
 * catalog and the ACL table. The hand-written manifests live beside it in {@code manifests/}; the module's tests hold
 * both to the CRDs' schemas and to the code.
 */
package io.streamhouse.kubernetes;
