import { describe, expect, it } from "vitest";
import { classifyStep, exploratoryTableOf, exploratoryTablesOf } from "./classify-step";
import { scanTables } from "./scan-tables";

describe("classifyStep", () => {
  const schema = ["Singer", "concert", "stadium"];
  it("maps the seed systems' tools to roles, MCP prefixes stripped", () => {
    expect(classifyStep("mcp__sqlite__list_tables", {}).role).toBe("schema_listing");
    expect(classifyStep("sqlite_describe_table", { table_name: "singer" }, undefined, schema)).toEqual({
      role: "schema_exploration",
      tool: "describe_table",
      tables: ["Singer"],
      exploratory: true,
    });
    expect(classifyStep("GetColValues", { column: "x", table: "concert" }).role).toBe("data_inspection");
    expect(classifyStep("SQLExecutor", { sql: "SELECT 1" }).role).toBe("execution");
    expect(classifyStep("terminate", { answer: "SELECT 1" }).role).toBe("submission");
    expect(classifyStep("bash", { cmd: "ls" })).toEqual({
      role: "other",
      tool: "bash",
      tables: [],
      exploratory: false,
    });
  });
  it("a PRAGMA table_info read_query is exploratory; a SELECT probe is not", () => {
    expect(classifyStep("read_query", { query: "PRAGMA table_info(concert)" })).toMatchObject({
      exploratory: true,
      tables: ["concert"],
    });
    expect(
      classifyStep(
        "read_query",
        { query: "SELECT name FROM singer s JOIN concert c ON c.singer_id = s.id" },
        undefined,
        schema,
      ),
    ).toMatchObject({ exploratory: false, tables: ["Singer", "concert"] });
  });
  it("a run's own mapping overrides the default", () => {
    expect(classifyStep("peek", { table: "concert" }, { peek: "data_inspection" }).role).toBe("data_inspection");
    expect(classifyStep("read_query", { query: "SELECT 1" }, { read_query: "execution" }).role).toBe("execution");
  });
});

describe("exploratoryTablesOf without a database: the names a filter compares a name column with (issue 30)", () => {
  it("reads quoted columns, reversed comparisons, OR and IN lists, and an alias's column", () => {
    expect(exploratoryTablesOf(`SELECT "sql" FROM "sqlite_master" WHERE "name" = 't'`)).toEqual(["t"]);
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE 't' = name")).toEqual(["t"]);
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE name = 'a' OR name = 'b'")).toEqual(["a", "b"]);
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE tbl_name IN ('a', 'b', 'a')")).toEqual(["a", "b"]);
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master AS m WHERE m.name == 'c'")).toEqual(["c"]);
    expect(exploratoryTablesOf("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).toBeUndefined();
  });
  it("asks the database when it is given, and only with a filter of plain functions", () => {
    const asked: string[] = [];
    const rows = (alias: string | undefined, where: string) => (
      asked.push(`${alias ?? ""}|${where}`),
      ["x", "sqlite_sequence"]
    );
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master m WHERE lower(m.name) = 'x' LIMIT 1", rows)).toEqual([
      "x",
    ]);
    expect(asked).toEqual(["m|lower(m.name) = 'x'"]);
    // A subquery or another function: not sent; read from the tokens.
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE name IN (SELECT 'y')", rows)).toEqual(["y"]);
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE name = 'z' AND randomblob(9)", rows)).toEqual([
      "z",
    ]);
    // `IN <table>` reads that table: not sent either.
    expect(exploratoryTablesOf("SELECT sql FROM sqlite_master WHERE name = 'w' OR name IN big_table", rows)).toEqual([
      "w",
    ]);
    expect(asked).toHaveLength(1);
  });
});

describe("a describe_table argument as agents quote it (issue 30)", () => {
  it("is the table SQLite reads, without its quotes", () => {
    for (const arg of ['"sänger"', "'sänger'", "`sänger`", "[sänger]", " sänger "])
      expect(classifyStep("describe_table", { table_name: arg }, undefined, ["sänger", "konzert"]).tables).toEqual([
        "sänger",
      ]);
    expect(classifyStep("describe_table", { table_name: '"odd""name"' }).tables).toEqual(['odd"name']);
  });
});

describe("exploratoryTableOf", () => {
  it("recognises the Sophrosyne forms", () => {
    expect(exploratoryTableOf("PRAGMA table_info('sänger');")).toBe("sänger");
    expect(exploratoryTableOf('pragma TABLE_INFO("Singer")')).toBe("Singer");
    expect(exploratoryTableOf("SELECT name, type FROM pragma_table_info('concert')")).toBe("concert");
    expect(exploratoryTableOf("SELECT sql FROM sqlite_master WHERE type='table' AND name = 'stadium'")).toBe("stadium");
    expect(exploratoryTableOf("SELECT name FROM sqlite_master WHERE type='table'")).toBeUndefined();
    expect(exploratoryTableOf("SELECT * FROM concert LIMIT 5")).toBeUndefined();
  });

  // Every spelling SQLite accepts (each checked against sqlite3 by hand): one form per case.
  it.each([
    ["PRAGMA table_info = concert", "concert"],
    ["PRAGMA table_info = 'concert';", "concert"],
    ["PRAGMA main.table_info(concert)", "concert"],
    ['PRAGMA "main".table_info(concert)', "concert"],
    ["PRAGMA [main].table_xinfo([concert])", "concert"],
    ["pragma Main.TABLE_XINFO(`concert`)", "concert"],
    ["/* look first */ PRAGMA table_info(concert)", "concert"],
    ["-- the columns\nPRAGMA table_info(concert)", "concert"],
    [";; PRAGMA table_info(concert);;", "concert"],
    ['SELECT * FROM pragma_table_info("concert")', "concert"],
    ["SELECT name FROM pragma_table_info('concert','main')", "concert"],
    ["SELECT name FROM pragma_table_xinfo('concert')", "concert"],
    ["SELECT * FROM PRAGMA_TABLE_INFO(concert, 'main')", "concert"],
    ['SELECT sql FROM sqlite_master WHERE name = "concert"', "concert"],
    ["SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND tbl_name == 'concert'", "concert"],
    ["select sql from SQLITE_MASTER m where m.name like 'concert'", "concert"],
  ])("counts %s", (sql, table) => {
    expect(exploratoryTableOf(sql)).toBe(table);
    expect(classifyStep("read_query", { query: sql })).toMatchObject({ exploratory: true, tables: [table] });
  });

  it.each([
    "PRAGMA index_list(concert)",
    "PRAGMA table_list",
    "SELECT sql FROM sqlite_master WHERE name LIKE 'con%'",
    "SELECT * FROM concert WHERE name = 'table_info'",
    "PRAGMA table_info(concert); SELECT * FROM singer",
  ])("does not count %s", (sql) => {
    expect(exploratoryTableOf(sql)).toBeUndefined();
  });

  it("counts describe_table without a table as an exploratory call on an unknown table", () => {
    expect(classifyStep("describe_table", {})).toEqual({
      role: "schema_exploration",
      tool: "describe_table",
      tables: [],
      exploratory: true,
    });
    expect(classifyStep("mcp__db__describe_table", "")).toMatchObject({ exploratory: true, tables: [] });
  });

  it("reads SQL inside a Markdown fence", () => {
    expect(
      classifyStep("read_query", { query: "```sql\nSELECT * FROM concert\n```" }, undefined, ["concert"]),
    ).toMatchObject({ tables: ["concert"] });
  });
});

describe("the scan as SQLite reads names (issue 30)", () => {
  it("goes on past a table-valued function in a FROM list", () => {
    expect(scanTables("SELECT * FROM json_each('[1]'), atom")).toEqual(["atom"]);
    expect(scanTables("SELECT * FROM atom, json_each('[1,2]') AS j, bond WHERE j.value = 1")).toEqual(["atom", "bond"]);
    expect(scanTables("SELECT * FROM pragma_table_info('x') p JOIN molecule m ON 1")).toEqual(["molecule"]);
  });
  it("folds case in ASCII only, as SQLite matches identifiers", () => {
    const schema = ["sänger", "konzert"];
    expect(classifyStep("describe_table", { table_name: "KONZERT" }, undefined, schema).tables).toEqual(["konzert"]);
    // SQLite does not fold Ä to ä: SÄNGER is not the table sänger.
    expect(classifyStep("describe_table", { table_name: "SÄNGER" }, undefined, schema).tables).toEqual(["SÄNGER"]);
    expect(classifyStep("describe_table", { table_name: "sÄnger" }, undefined, ["SÄNGER"]).tables).toEqual(["SÄNGER"]);
  });
});

describe("scanTables", () => {
  it("reads FROM lists, joins, quoted names and skips CTEs, strings and functions", () => {
    expect(scanTables("SELECT * FROM a, main.b AS x JOIN \"c d\" ON 1 WHERE s = 'FROM e'")).toEqual(["a", "b", "c d"]);
    expect(scanTables("WITH t AS (SELECT * FROM base) SELECT * FROM t JOIN other USING (id)")).toEqual([
      "base",
      "other",
    ]);
    expect(scanTables("SELECT * FROM (SELECT id FROM inner_t) q LEFT OUTER JOIN `x`")).toEqual(["inner_t", "x"]);
    expect(scanTables("SELECT * FROM pragma_table_info('t')")).toEqual([]);
    expect(scanTables("SELECT count(*) FROM sänger -- FROM comment")).toEqual(["sänger"]);
  });
  it("drops CTE names declared with a column list, recursive CTEs and table-valued functions", () => {
    expect(scanTables("WITH r(n) AS (SELECT id FROM base) SELECT n FROM r")).toEqual(["base"]);
    expect(
      scanTables(
        "WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt WHERE x < 9) SELECT x FROM cnt JOIN t ON t.id = x",
      ),
    ).toEqual(["t"]);
    expect(
      scanTables(
        "WITH a AS MATERIALIZED (SELECT * FROM s), b(k, v) AS (SELECT * FROM a) SELECT * FROM b, json_each(b.v)",
      ),
    ).toEqual(["s"]);
  });
});
