/** Load for the serving benchmarks (freshness from produce to visible, seeding parcels for the lookup benchmark). */
package io.streamhouse.loadtests.serving;
