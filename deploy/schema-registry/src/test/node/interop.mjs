// Talks to a schema registry with Confluent's official JavaScript client (@confluentinc/schemaregistry), so that
// NodeClientInteropIT can check our registry and our Java serializers against code nobody here wrote.
//
// It registers the schema file under <nodeTopic>-value, reads it back by id and by subject/version, looks up its id
// under <javaTopic>-value (where the Java serializer registered it), serializes the record in <recordJson> with the
// client's AvroSerializer into <nodeBytesOut>, and decodes <javaBytesIn> (written by our Java AvroSerializer) with the
// client's AvroDeserializer. Everything it learnt is printed as one line: "INTEROP_RESULT {json}".
import { readFileSync, writeFileSync } from 'node:fs';
import sr from '@confluentinc/schemaregistry';

const { SchemaRegistryClient, AvroSerializer, AvroDeserializer, SerdeType } = sr;

const args = process.argv.slice(2);
if (args.length !== 7) {
  console.error('usage: node interop.mjs <registryUrl> <schema.avsc> <javaTopic> <javaBytesIn> <nodeTopic> <recordJson> <nodeBytesOut>');
  process.exit(2);
}
const [registryUrl, schemaFile, javaTopic, javaBytesIn, nodeTopic, recordJson, nodeBytesOut] = args;

const info = { schemaType: 'AVRO', schema: readFileSync(schemaFile, 'utf8') };
// Few, short retries: a failure here should fail the test quickly, not after the client's 20 s backoff.
const client = new SchemaRegistryClient({ baseURLs: [registryUrl], maxRetries: 1, retriesWaitMs: 100, retriesMaxWaitMs: 500 });
const nodeSubject = `${nodeTopic}-value`;
const javaSubject = `${javaTopic}-value`;

const registeredId = await client.register(nodeSubject, info);
const idUnderJavaSubject = await client.getId(javaSubject, info);
const byId = await client.getBySubjectAndId(nodeSubject, registeredId);
const byVersion = await client.getSchemaMetadata(nodeSubject, 1);
const latest = await client.getLatestSchemaMetadata(nodeSubject);
const versions = await client.getAllVersions(nodeSubject);
const subjects = await client.getAllSubjects();
const compatible = await client.testSubjectCompatibility(nodeSubject, info);
const defaultCompatibility = await client.getDefaultCompatibility();

// Default subject-name strategy (ASSOCIATED, falling back to TopicNameStrategy), as an application would use it.
const record = JSON.parse(readFileSync(recordJson, 'utf8'));
const serializer = new AvroSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true });
const nodeBytes = await serializer.serialize(nodeTopic, record);
writeFileSync(nodeBytesOut, nodeBytes);

const javaBytes = readFileSync(javaBytesIn);
const deserializer = new AvroDeserializer(client, SerdeType.VALUE, {});
const decodedFromJava = await deserializer.deserialize(javaTopic, javaBytes);

console.log('INTEROP_RESULT ' + JSON.stringify({
  registeredId,
  idUnderJavaSubject,
  byIdSchema: byId.schema,
  byVersion: { subject: byVersion.subject, version: byVersion.version, id: byVersion.id, schema: byVersion.schema },
  latest: { subject: latest.subject, version: latest.version, id: latest.id },
  versions,
  subjects,
  compatible,
  defaultCompatibility,
  nodeBytesMagic: nodeBytes[0],
  nodeBytesSchemaId: nodeBytes.readInt32BE(1),
  javaBytesSchemaId: javaBytes.readInt32BE(1),
  decodedFromJava,
}));
await client.close();
