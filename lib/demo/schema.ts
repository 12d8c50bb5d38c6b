/**
 * The simulated demo's database: a small retail company (18 tables with foreign keys and column descriptions),
 * written by hand for Metron's demo. Nothing here is real data.
 */
export interface DemoColumn {
  name: string;
  type: string;
  description: string;
  values?: string;
}
export interface DemoTable {
  name: string;
  description: string;
  columns: DemoColumn[];
  primaryKey: string[];
  foreignKeys: { column: string; ref: string; refColumn: string }[];
}

const c = (name: string, type: string, description: string, values?: string): DemoColumn => ({
  name,
  type,
  description,
  ...(values ? { values } : {}),
});

export const DEMO_TABLES: DemoTable[] = [
  {
    name: "regions",
    description: "sales regions",
    primaryKey: ["region_id"],
    foreignKeys: [],
    columns: [
      c("region_id", "INTEGER", "region identifier"),
      c("name", "TEXT", "region name", "Europe, North America, South America, Asia, Oceania"),
    ],
  },
  {
    name: "countries",
    description: "countries the company sells to",
    primaryKey: ["country_id"],
    foreignKeys: [{ column: "region_id", ref: "regions", refColumn: "region_id" }],
    columns: [
      c("country_id", "INTEGER", "country identifier"),
      c("name", "TEXT", "country name"),
      c("region_id", "INTEGER", "the region of the country"),
    ],
  },
  {
    name: "customers",
    description: "registered customers",
    primaryKey: ["customer_id"],
    foreignKeys: [{ column: "country_id", ref: "countries", refColumn: "country_id" }],
    columns: [
      c("customer_id", "INTEGER", "customer identifier"),
      c("first_name", "TEXT", "first name"),
      c("last_name", "TEXT", "last name"),
      c("email", "TEXT", "email address"),
      c("country_id", "INTEGER", "country of residence"),
      c("signup_date", "TEXT", "date of registration", "YYYY-MM-DD"),
      c("segment", "TEXT", "customer segment", "consumer, business, vip"),
    ],
  },
  {
    name: "addresses",
    description: "delivery addresses of customers",
    primaryKey: ["address_id"],
    foreignKeys: [{ column: "customer_id", ref: "customers", refColumn: "customer_id" }],
    columns: [
      c("address_id", "INTEGER", "address identifier"),
      c("customer_id", "INTEGER", "the customer"),
      c("city", "TEXT", "city"),
      c("postal_code", "TEXT", "postal code"),
      c("is_default", "INTEGER", "whether it is the default address", "1 yes, 0 no"),
    ],
  },
  {
    name: "categories",
    description: "product categories, possibly nested",
    primaryKey: ["category_id"],
    foreignKeys: [{ column: "parent_id", ref: "categories", refColumn: "category_id" }],
    columns: [
      c("category_id", "INTEGER", "category identifier"),
      c("name", "TEXT", "category name"),
      c("parent_id", "INTEGER", "parent category, NULL for a top-level category"),
    ],
  },
  {
    name: "suppliers",
    description: "product suppliers",
    primaryKey: ["supplier_id"],
    foreignKeys: [{ column: "country_id", ref: "countries", refColumn: "country_id" }],
    columns: [
      c("supplier_id", "INTEGER", "supplier identifier"),
      c("name", "TEXT", "supplier company name"),
      c("country_id", "INTEGER", "country of the supplier"),
    ],
  },
  {
    name: "products",
    description: "products in the catalogue",
    primaryKey: ["product_id"],
    foreignKeys: [
      { column: "category_id", ref: "categories", refColumn: "category_id" },
      { column: "supplier_id", ref: "suppliers", refColumn: "supplier_id" },
    ],
    columns: [
      c("product_id", "INTEGER", "product identifier"),
      c("name", "TEXT", "product name"),
      c("category_id", "INTEGER", "category of the product"),
      c("supplier_id", "INTEGER", "supplier of the product"),
      c("unit_price", "REAL", "list price in euros"),
      c("launched_on", "TEXT", "launch date", "YYYY-MM-DD"),
    ],
  },
  {
    name: "warehouses",
    description: "warehouses that ship orders",
    primaryKey: ["warehouse_id"],
    foreignKeys: [{ column: "country_id", ref: "countries", refColumn: "country_id" }],
    columns: [
      c("warehouse_id", "INTEGER", "warehouse identifier"),
      c("name", "TEXT", "warehouse name"),
      c("country_id", "INTEGER", "country of the warehouse"),
    ],
  },
  {
    name: "inventory",
    description: "stock of each product in each warehouse",
    primaryKey: ["warehouse_id", "product_id"],
    foreignKeys: [
      { column: "warehouse_id", ref: "warehouses", refColumn: "warehouse_id" },
      { column: "product_id", ref: "products", refColumn: "product_id" },
    ],
    columns: [
      c("warehouse_id", "INTEGER", "the warehouse"),
      c("product_id", "INTEGER", "the product"),
      c("quantity", "INTEGER", "units in stock"),
    ],
  },
  {
    name: "departments",
    description: "company departments",
    primaryKey: ["department_id"],
    foreignKeys: [],
    columns: [
      c("department_id", "INTEGER", "department identifier"),
      c("name", "TEXT", "department name", "Sales, Support, Logistics, Marketing, Finance"),
    ],
  },
  {
    name: "employees",
    description: "employees of the company",
    primaryKey: ["employee_id"],
    foreignKeys: [{ column: "department_id", ref: "departments", refColumn: "department_id" }],
    columns: [
      c("employee_id", "INTEGER", "employee identifier"),
      c("name", "TEXT", "full name"),
      c("department_id", "INTEGER", "department"),
      c("hired_on", "TEXT", "hiring date", "YYYY-MM-DD"),
      c("salary", "REAL", "yearly salary in euros"),
    ],
  },
  {
    name: "promotions",
    description: "discount campaigns",
    primaryKey: ["promotion_id"],
    foreignKeys: [],
    columns: [
      c("promotion_id", "INTEGER", "promotion identifier"),
      c("code", "TEXT", "promotion code"),
      c("percent_off", "INTEGER", "discount in percent"),
      c("starts_on", "TEXT", "first day", "YYYY-MM-DD"),
      c("ends_on", "TEXT", "last day", "YYYY-MM-DD"),
    ],
  },
  {
    name: "orders",
    description: "customer orders",
    primaryKey: ["order_id"],
    foreignKeys: [
      { column: "customer_id", ref: "customers", refColumn: "customer_id" },
      { column: "employee_id", ref: "employees", refColumn: "employee_id" },
      { column: "promotion_id", ref: "promotions", refColumn: "promotion_id" },
    ],
    columns: [
      c("order_id", "INTEGER", "order identifier"),
      c("customer_id", "INTEGER", "the customer who ordered"),
      c("employee_id", "INTEGER", "the sales employee handling the order"),
      c("order_date", "TEXT", "date of the order", "YYYY-MM-DD"),
      c("status", "TEXT", "order status", "placed, shipped, delivered, cancelled, returned"),
      c("promotion_id", "INTEGER", "promotion used, NULL if none"),
    ],
  },
  {
    name: "order_items",
    description: "lines of an order",
    primaryKey: ["order_id", "product_id"],
    foreignKeys: [
      { column: "order_id", ref: "orders", refColumn: "order_id" },
      { column: "product_id", ref: "products", refColumn: "product_id" },
    ],
    columns: [
      c("order_id", "INTEGER", "the order"),
      c("product_id", "INTEGER", "the product"),
      c("quantity", "INTEGER", "units ordered"),
      c("unit_price", "REAL", "price per unit paid, in euros"),
      c("discount", "REAL", "discount as a fraction", "0 to 0.5"),
    ],
  },
  {
    name: "payments",
    description: "payments of orders",
    primaryKey: ["payment_id"],
    foreignKeys: [{ column: "order_id", ref: "orders", refColumn: "order_id" }],
    columns: [
      c("payment_id", "INTEGER", "payment identifier"),
      c("order_id", "INTEGER", "the order paid"),
      c("method", "TEXT", "payment method", "card, paypal, transfer"),
      c("amount", "REAL", "amount paid in euros"),
      c("paid_at", "TEXT", "payment date", "YYYY-MM-DD"),
    ],
  },
  {
    name: "carriers",
    description: "shipping companies",
    primaryKey: ["carrier_id"],
    foreignKeys: [],
    columns: [c("carrier_id", "INTEGER", "carrier identifier"), c("name", "TEXT", "carrier name")],
  },
  {
    name: "shipments",
    description: "shipments of orders",
    primaryKey: ["shipment_id"],
    foreignKeys: [
      { column: "order_id", ref: "orders", refColumn: "order_id" },
      { column: "carrier_id", ref: "carriers", refColumn: "carrier_id" },
      { column: "warehouse_id", ref: "warehouses", refColumn: "warehouse_id" },
    ],
    columns: [
      c("shipment_id", "INTEGER", "shipment identifier"),
      c("order_id", "INTEGER", "the order shipped"),
      c("carrier_id", "INTEGER", "the carrier"),
      c("warehouse_id", "INTEGER", "the warehouse it left from"),
      c("shipped_at", "TEXT", "shipping date", "YYYY-MM-DD"),
      c("delivered_at", "TEXT", "delivery date, NULL if not delivered", "YYYY-MM-DD"),
    ],
  },
  {
    name: "reviews",
    description: "product reviews by customers",
    primaryKey: ["review_id"],
    foreignKeys: [
      { column: "product_id", ref: "products", refColumn: "product_id" },
      { column: "customer_id", ref: "customers", refColumn: "customer_id" },
    ],
    columns: [
      c("review_id", "INTEGER", "review identifier"),
      c("product_id", "INTEGER", "the product reviewed"),
      c("customer_id", "INTEGER", "the reviewer"),
      c("rating", "INTEGER", "stars", "1 to 5"),
      c("created_at", "TEXT", "review date", "YYYY-MM-DD"),
    ],
  },
];

export function demoDdl(): string {
  return DEMO_TABLES.map((t) => {
    const cols = t.columns.map((col) => `  ${col.name} ${col.type}`);
    cols.push(`  PRIMARY KEY (${t.primaryKey.join(", ")})`);
    for (const fk of t.foreignKeys) cols.push(`  FOREIGN KEY (${fk.column}) REFERENCES ${fk.ref} (${fk.refColumn})`);
    return `CREATE TABLE ${t.name} (\n${cols.join(",\n")}\n);`;
  }).join("\n");
}
