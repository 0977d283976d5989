/**
 * The serving projections: pure folds of parcel scans, telemetry, alerts and customer inputs into versioned stores,
 * the topology that runs them ({@link io.streamhouse.projections.serving.ServingTopology}), the store names the api
 * and the tests share ({@link io.streamhouse.projections.serving.ServingStores}), and the judgements added at query
 * time ({@link io.streamhouse.projections.serving.Assessments}).
 */
package io.streamhouse.projections.serving;
