-- Change data capture needs the previous values where a domain event carries them: an e-mail change
-- (CustomerEmailChanged.previous), an address change (CustomerAddressChanged.previous) and an order status change
-- (OrderStatusChanged.previous). With the default identity (primary key) PostgreSQL logs only the key of the old row,
-- so Debezium's "before" would be empty. FULL logs the whole old row for UPDATE and DELETE.
-- order_lines and payment_methods keep the default: nothing downstream needs their old values, and FULL costs WAL.
ALTER TABLE customers REPLICA IDENTITY FULL;
ALTER TABLE addresses REPLICA IDENTITY FULL;
ALTER TABLE orders REPLICA IDENTITY FULL;
