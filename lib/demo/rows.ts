/** Generated rows of the simulated demo database (seeded: the same rows on every machine). */
import type Database from "better-sqlite3";
import { seededRandom } from "@/lib/metrics/stats";

const REGIONS = ["Europe", "North America", "South America", "Asia", "Oceania"];
const COUNTRIES: [string, number][] = [
  ["Germany", 1],
  ["France", 1],
  ["Spain", 1],
  ["Italy", 1],
  ["Netherlands", 1],
  ["Poland", 1],
  ["Sweden", 1],
  ["United States", 2],
  ["Canada", 2],
  ["Mexico", 2],
  ["Brazil", 3],
  ["Argentina", 3],
  ["Chile", 3],
  ["Japan", 4],
  ["India", 4],
  ["South Korea", 4],
  ["Singapore", 4],
  ["Australia", 5],
  ["New Zealand", 5],
  ["Portugal", 1],
];
const FIRST = [
  "Anna",
  "Ben",
  "Clara",
  "David",
  "Elena",
  "Felix",
  "Greta",
  "Hugo",
  "Ines",
  "Jonas",
  "Kira",
  "Leo",
  "Mia",
  "Noah",
  "Olga",
  "Paul",
  "Rosa",
  "Sami",
  "Tara",
  "Umar",
  "Vera",
  "Yuki",
  "Zoe",
  "Omar",
];
const LAST = [
  "Meyer",
  "Dubois",
  "Garcia",
  "Rossi",
  "de Vries",
  "Nowak",
  "Berg",
  "Smith",
  "Tremblay",
  "Lopez",
  "Silva",
  "Fernandez",
  "Rojas",
  "Sato",
  "Sharma",
  "Kim",
  "Tan",
  "Brown",
  "Wilson",
  "Costa",
];
const CITIES = ["Harbor City", "Lakeside", "Old Town", "Riverbend", "Hilltop", "Northgate", "Southport", "Westfield"];
const CATEGORIES: [string, number | null][] = [
  ["Electronics", null],
  ["Home", null],
  ["Outdoor", null],
  ["Books", null],
  ["Phones", 1],
  ["Laptops", 1],
  ["Audio", 1],
  ["Kitchen", 2],
  ["Furniture", 2],
  ["Camping", 3],
  ["Cycling", 3],
  ["Fiction", 4],
];
const ADJ = ["Compact", "Classic", "Pro", "Ultra", "Eco", "Smart", "Travel", "Studio", "Family", "Mini"];
const NOUN: Record<number, string[]> = {
  5: ["Phone", "Phone Case"],
  6: ["Laptop", "Laptop Stand"],
  7: ["Headphones", "Speaker"],
  8: ["Kettle", "Blender"],
  9: ["Chair", "Desk"],
  10: ["Tent", "Sleeping Bag"],
  11: ["Bike Light", "Helmet"],
  12: ["Novel", "Anthology"],
  1: ["Charger"],
  2: ["Lamp"],
  3: ["Backpack"],
  4: ["Atlas"],
};
const DEPARTMENTS = ["Sales", "Support", "Logistics", "Marketing", "Finance"];
const CARRIERS = ["SwiftShip", "Parcelo", "GlobeFreight", "Northline Express"];
const STATUSES = ["placed", "shipped", "delivered", "delivered", "delivered", "cancelled", "returned"];
const METHODS = ["card", "card", "paypal", "transfer"];

const day = (start: string, offset: number) =>
  new Date(Date.parse(start) + offset * 86_400_000).toISOString().slice(0, 10);

export function insertDemoRows(db: Database.Database, seed = 20260601): void {
  const r = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const ins = (table: string, cols: string[]) =>
    db.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
  db.transaction(() => {
    const region = ins("regions", ["region_id", "name"]);
    REGIONS.forEach((n, i) => region.run(i + 1, n));
    const country = ins("countries", ["country_id", "name", "region_id"]);
    COUNTRIES.forEach(([n, reg], i) => country.run(i + 1, n, reg));
    const customer = ins("customers", [
      "customer_id",
      "first_name",
      "last_name",
      "email",
      "country_id",
      "signup_date",
      "segment",
    ]);
    for (let i = 1; i <= 300; i++) {
      const f = pick(FIRST),
        l = pick(LAST);
      customer.run(
        i,
        f,
        l,
        `${f}.${l}${i}@example.test`.toLowerCase().replace(/ /g, ""),
        int(1, COUNTRIES.length),
        day("2021-01-01", int(0, 1200)),
        r() < 0.1 ? "vip" : r() < 0.3 ? "business" : "consumer",
      );
    }
    const address = ins("addresses", ["address_id", "customer_id", "city", "postal_code", "is_default"]);
    let aid = 1;
    for (let cst = 1; cst <= 300; cst++)
      for (let k = 0, n = int(1, 2); k < n; k++)
        address.run(aid++, cst, pick(CITIES), String(int(10000, 99999)), k === 0 ? 1 : 0);
    const category = ins("categories", ["category_id", "name", "parent_id"]);
    CATEGORIES.forEach(([n, p], i) => category.run(i + 1, n, p));
    const supplier = ins("suppliers", ["supplier_id", "name", "country_id"]);
    for (let i = 1; i <= 25; i++)
      supplier.run(
        i,
        `${pick(["Acme", "Nordic", "Sunrise", "Atlas", "Blue River", "Summit", "Orchid"])} ${pick(["Goods", "Trading", "Supply", "Works", "Imports"])} ${i}`,
        int(1, COUNTRIES.length),
      );
    const product = ins("products", ["product_id", "name", "category_id", "supplier_id", "unit_price", "launched_on"]);
    const prices: number[] = [0];
    for (let i = 1; i <= 120; i++) {
      const cat = int(1, CATEGORIES.length);
      const price = Math.round((5 + r() * (cat <= 6 ? 1500 : 300)) * 100) / 100;
      prices.push(price);
      product.run(i, `${pick(ADJ)} ${pick(NOUN[cat])} ${i}`, cat, int(1, 25), price, day("2019-01-01", int(0, 1800)));
    }
    const warehouse = ins("warehouses", ["warehouse_id", "name", "country_id"]);
    [
      ["Rotterdam Hub", 5],
      ["Leipzig Center", 1],
      ["Dallas Depot", 8],
      ["Sao Paulo Yard", 11],
      ["Singapore Port", 17],
      ["Sydney Store", 18],
    ].forEach(([n, cty], i) => warehouse.run(i + 1, n, cty));
    const inventory = ins("inventory", ["warehouse_id", "product_id", "quantity"]);
    for (let w = 1; w <= 6; w++) for (let p = 1; p <= 120; p++) if (r() < 0.7) inventory.run(w, p, int(0, 500));
    const department = ins("departments", ["department_id", "name"]);
    DEPARTMENTS.forEach((n, i) => department.run(i + 1, n));
    const employee = ins("employees", ["employee_id", "name", "department_id", "hired_on", "salary"]);
    for (let i = 1; i <= 40; i++)
      employee.run(
        i,
        `${pick(FIRST)} ${pick(LAST)}`,
        i <= 16 ? 1 : int(2, 5),
        day("2015-01-01", int(0, 3000)),
        int(32, 120) * 1000,
      );
    const promotion = ins("promotions", ["promotion_id", "code", "percent_off", "starts_on", "ends_on"]);
    [
      ["SPRING10", 10],
      ["SUMMER15", 15],
      ["BLACKFRIDAY30", 30],
      ["WELCOME5", 5],
      ["VIP20", 20],
      ["WINTER12", 12],
      ["FLASH25", 25],
      ["BOOKS8", 8],
    ].forEach(([code, pct], i) =>
      promotion.run(i + 1, code, pct, day("2022-01-01", i * 90), day("2022-01-01", i * 90 + 30)),
    );
    const order = ins("orders", ["order_id", "customer_id", "employee_id", "order_date", "status", "promotion_id"]);
    const item = ins("order_items", ["order_id", "product_id", "quantity", "unit_price", "discount"]);
    const payment = ins("payments", ["payment_id", "order_id", "method", "amount", "paid_at"]);
    const shipment = ins("shipments", [
      "shipment_id",
      "order_id",
      "carrier_id",
      "warehouse_id",
      "shipped_at",
      "delivered_at",
    ]);
    const review = ins("reviews", ["review_id", "product_id", "customer_id", "rating", "created_at"]);
    const carrier = ins("carriers", ["carrier_id", "name"]);
    CARRIERS.forEach((n, i) => carrier.run(i + 1, n));
    let pid = 1,
      sid = 1,
      rid = 1;
    for (let o = 1; o <= 1200; o++) {
      const date = day("2022-01-01", int(0, 1000));
      const status = pick(STATUSES);
      const cust = int(1, 300);
      order.run(o, cust, int(1, 16), date, status, r() < 0.2 ? int(1, 8) : null);
      let total = 0;
      const used = new Set<number>();
      for (let k = 0, n = int(1, 4); k < n; k++) {
        const p = int(1, 120);
        if (used.has(p)) continue;
        used.add(p);
        const q = int(1, 5),
          disc = pick([0, 0, 0, 0.05, 0.1, 0.2]);
        item.run(o, p, q, prices[p], disc);
        total += q * prices[p] * (1 - disc);
      }
      if (status !== "cancelled") payment.run(pid++, o, pick(METHODS), Math.round(total * 100) / 100, date);
      if (["shipped", "delivered", "returned"].includes(status)) {
        const shipped = day(date, int(0, 3));
        shipment.run(sid++, o, int(1, 4), int(1, 6), shipped, status === "shipped" ? null : day(shipped, int(1, 12)));
      }
      if (status === "delivered" && r() < 0.6)
        review.run(rid++, [...used][0], cust, pick([1, 2, 3, 4, 4, 5, 5, 5]), day(date, int(5, 40)));
    }
  })();
}
