import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyStep } from "@/lib/sql/classify-step";
import { adapt, detectFormat } from "./index";
import { parseSpiderAction } from "./spider-agent-react";

// Written after Spider 2.0's spider-agent-lite (run.py writes result.json; agents.py get_trajectory; action.py's
// reprs): no public result.json of a local (SQLite) task was at hand.
const text = readFileSync(path.join(__dirname, "fixtures", "spider-agent-react-result.json"), "utf8");

describe("Spider-Agent ReAct result.json", () => {
  it("parses each action class's repr, quotes inside the SQL included", () => {
    expect(
      parseSpiderAction('LOCAL_DB_SQL(file_path="a.sqlite", command="SELECT "x" FROM t", output="direct")'),
    ).toEqual({
      tool: "LOCAL_DB_SQL",
      args: { file_path: "a.sqlite", sql: 'SELECT "x" FROM t', output: "direct" },
    });
    expect(
      parseSpiderAction(
        'SNOWFLAKE_EXEC_SQL(sql_query="SELECT 1\nFROM DB.S.T", is_save=True, save_path="/workspace/r.csv")',
      ),
    ).toEqual({
      tool: "SNOWFLAKE_EXEC_SQL",
      args: { sql: "SELECT 1\nFROM DB.S.T", is_save: true, save_path: "/workspace/r.csv" },
    });
    expect(parseSpiderAction('BIGQUERY_EXEC_SQL(sql_query="SELECT 2", is_save=False)')).toEqual({
      tool: "BIGQUERY_EXEC_SQL",
      args: { sql: "SELECT 2", is_save: false },
    });
    expect(parseSpiderAction('Bash(code="ls -l")')).toEqual({ tool: "Bash", args: { code: "ls -l" } });
    expect(parseSpiderAction("CreateFile(filepath='q.sql':\n'''\nSELECT 1\n''')")).toEqual({
      tool: "CreateFile",
      args: { filepath: "q.sql", code: "SELECT 1" },
    });
    expect(
      parseSpiderAction('BQ_GET_TABLE_INFO(database_name="p", dataset_name="d", table="events", save_path="x.csv")'),
    ).toEqual({
      tool: "BQ_GET_TABLE_INFO",
      args: { database_name: "p", dataset_name: "d", table: "events", save_path: "x.csv" },
    });
    expect(parseSpiderAction("None")).toBeNull();
  });

  it("reads turns as reasoning and tool calls, each result the next observation, the saved query as final SQL", () => {
    expect(detectFormat(text)).toBe("spider-agent-react");
    const { traces, warnings } = adapt(text, "spider-agent-react");
    expect(warnings).toEqual([]);
    const [t] = traces;
    expect(t.question.text).toBe("How many singers do we have?");
    const calls = t.steps.filter((s) => s.type === "tool_call");
    expect(calls.map((s) => s.tool)).toEqual(["Bash", "LOCAL_DB_SQL", "LOCAL_DB_SQL", "LOCAL_DB_SQL", "Terminate"]);
    expect(calls[1].result).toBe("name\nstadium\nsinger\nconcert\nsinger_in_concert");
    expect(calls[4].result).toBe("result.csv");
    expect(t.steps.some((s) => s.type === "error" && /no action could be parsed/.test(s.error ?? ""))).toBe(true);
    expect(t.final_sql).toBe('SELECT count(*) AS "n" FROM singer');
    expect(t.outcome).toEqual({ correct: null, status: "submitted" });
    // Measured as SQL tools: a PRAGMA probe of one table is an exploratory call; Terminate is the submission.
    expect(classifyStep(calls[2].tool!, calls[2].args)).toMatchObject({
      role: "execution",
      exploratory: true,
      tables: ["singer"],
    });
    expect(classifyStep(calls[4].tool!, calls[4].args).role).toBe("submission");
  });
});
