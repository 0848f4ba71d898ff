-- The example consumer's tables (functions/order-worker).
CREATE TABLE orders (
  order_id   uuid          PRIMARY KEY,
  status     text          NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'shipped', 'cancelled')),
  version    integer       NOT NULL DEFAULT 0,
  amount     numeric(12,2) NOT NULL DEFAULT 0,
  paid_total numeric(12,2) NOT NULL DEFAULT 0,
  updated_at timestamptz   NOT NULL DEFAULT now()
);

CREATE TABLE order_payments (
  payment_id  uuid          PRIMARY KEY,
  order_id    uuid          NOT NULL REFERENCES orders,
  amount      numeric(12,2) NOT NULL CHECK (amount > 0),
  received_at timestamptz   NOT NULL DEFAULT now()
);
