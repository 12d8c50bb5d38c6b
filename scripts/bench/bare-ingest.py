"""The script a researcher would write instead of Metron (npm run bench -- ingest): json + sqlite3, no metrics.

Reads a JSONL file of whole traces and stores each trace and its steps in two tables of a fresh SQLite file, with
executemany, in one transaction. Prints {"seconds", "cpuSeconds", "maxRssMb", "traces"} as the bench's other phases
do (seconds and CPU until the commit; the close's checkpoint after it).

With a third argument `wal`, the store is in WAL mode with synchronous=NORMAL, as Metron's store is (its server's
pages read while an ingest writes, which a rollback journal would block); without, sqlite3's defaults (a rollback
journal, which writes a fresh file's pages once where WAL writes them to the log and again at the checkpoint).
"""
import json
import resource
import sqlite3
import sys
import time

source, store = sys.argv[1], sys.argv[2]
start = time.time()
cpu_start = resource.getrusage(resource.RUSAGE_SELF)
con = sqlite3.connect(store)
if len(sys.argv) > 3 and sys.argv[3] == "wal":
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
con.execute(
    "CREATE TABLE traces (id TEXT PRIMARY KEY, run TEXT, question_id TEXT, db_id TEXT, question TEXT,"
    " gold_sql TEXT, final_sql TEXT, correct INTEGER, steps INTEGER)"
)
con.execute(
    "CREATE TABLE steps (trace_id TEXT, seq INTEGER, type TEXT, tool TEXT, args TEXT, result TEXT, content TEXT,"
    " duration_ms REAL, input_tokens INTEGER, output_tokens INTEGER, PRIMARY KEY (trace_id, seq))"
)
n = 0
with open(source, encoding="utf-8") as lines:
    for line in lines:
        t = json.loads(line)
        q = t["question"]
        tid = "%064x" % n  # the width of Metron's trace hashes
        n += 1
        con.execute(
            "INSERT INTO traces VALUES (?,?,?,?,?,?,?,?,?)",
            (tid, (t.get("run") or {}).get("name"), q["id"], q.get("db_id"), q.get("text"), q.get("gold_sql"),
             t.get("final_sql"), 1 if (t.get("outcome") or {}).get("correct") else 0, len(t["steps"])),
        )
        con.executemany(
            "INSERT INTO steps VALUES (?,?,?,?,?,?,?,?,?,?)",
            [
                (tid, i, s["type"], s.get("tool"), json.dumps(s["args"]) if "args" in s else None,
                 json.dumps(s["result"]) if "result" in s else None, s.get("content"), s.get("duration_ms"),
                 (s.get("usage") or {}).get("input_tokens"), (s.get("usage") or {}).get("output_tokens"))
                for i, s in enumerate(t["steps"])
            ],
        )
con.commit()
seconds = time.time() - start
usage = resource.getrusage(resource.RUSAGE_SELF)  # until the commit, as the seconds
cpu = usage.ru_utime + usage.ru_stime - cpu_start.ru_utime - cpu_start.ru_stime
con.close()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpuSeconds": cpu, "maxRssMb": rss, "traces": n}))
