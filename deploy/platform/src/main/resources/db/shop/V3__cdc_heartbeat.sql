-- Written by Debezium's heartbeat.action.query every heartbeat: a change in the captured database even when the shop
-- is idle, so the replication slot's confirmed position keeps advancing and the slot does not hold WAL back.
CREATE TABLE cdc_heartbeat (
    id      integer     PRIMARY KEY,
    beat_at timestamptz NOT NULL
);
