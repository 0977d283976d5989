-- wrk script for the lookup benchmark: GET /v1/parcels/P-bench-<n> over parcels seeded by
-- FreshnessBenchmark --seed N (set N with the PARCELS environment variable, default 1000).
local parcels = tonumber(os.getenv("PARCELS") or "1000")
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/parcels/P-bench-" .. (counter * 7919 % parcels))
end
