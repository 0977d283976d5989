-- The operational database of the shop: the system of record that an order service writes and that change data
-- capture (Debezium, pgoutput) reads. Amounts are numeric(19,4): exact, scale 4 covers every ISO 4217 minor unit.

CREATE TABLE customers (
    id            text        PRIMARY KEY,
    email         text        NOT NULL,
    full_name     text        NOT NULL,
    registered_at timestamptz NOT NULL
);

-- A customer's current postal address, one row per customer (the history lives in the log, not here).
CREATE TABLE addresses (
    customer_id text        PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
    line1       text        NOT NULL,
    line2       text,
    city        text        NOT NULL,
    postal_code text        NOT NULL,
    country     char(2)     NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE TABLE payment_methods (
    id          text        PRIMARY KEY,
    customer_id text        NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    kind        text        NOT NULL CHECK (kind IN ('CARD', 'BANK_TRANSFER', 'WALLET')),
    card_token  text,
    created_at  timestamptz NOT NULL
);

-- An order snapshots its shipping address (a later address change must not move a placed order) and says how many
-- lines it has, so a reader of the change stream knows when it has seen the whole order.
CREATE TABLE orders (
    id                text          PRIMARY KEY,
    customer_id       text          NOT NULL REFERENCES customers (id),
    status            text          NOT NULL CHECK (status IN ('PLACED', 'PAID', 'PACKED', 'SHIPPED', 'DELIVERED', 'CANCELLED')),
    currency          char(3)       NOT NULL,
    total             numeric(19,4) NOT NULL,
    line_count        integer       NOT NULL CHECK (line_count > 0),
    payment_method_id text          REFERENCES payment_methods (id),
    ship_line1        text          NOT NULL,
    ship_line2        text,
    ship_city         text          NOT NULL,
    ship_postal_code  text          NOT NULL,
    ship_country      char(2)       NOT NULL,
    placed_at         timestamptz   NOT NULL,
    updated_at        timestamptz   NOT NULL,
    cancel_reason     text
);

CREATE TABLE order_lines (
    order_id   text          NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    line_no    integer       NOT NULL,
    sku        text          NOT NULL,
    quantity   integer       NOT NULL CHECK (quantity > 0),
    unit_price numeric(19,4) NOT NULL,
    PRIMARY KEY (order_id, line_no)
);

CREATE INDEX orders_customer_idx ON orders (customer_id);
CREATE INDEX payment_methods_customer_idx ON payment_methods (customer_id);
