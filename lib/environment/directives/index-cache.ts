/** The computed strategy's column index, built once per database file (by SHA-256) and cached on disk. */
import MiniSearch from "minisearch";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseInfo } from "../database-info";
import { buildKeywordIndex, INDEX_TOKENIZER, type ColumnDoc, type ColumnIndex } from "./computed";
import type { ValueIndex } from "./values";

const VERSION = 6; // bump when the indexed fields, the tokenizer or the embedded text change
const memory = new Map<string, ColumnIndex>();

export function indexCacheFor(
  dir: string,
  embedder?: { name: string; embed: (texts: string[]) => Promise<number[][]> },
) {
  return async (database: DatabaseInfo): Promise<ColumnIndex> => {
    const key = `${database.sha256}-v${VERSION}${embedder ? `-${embedder.name.replace(/[^\w.-]+/g, "_")}` : ""}`;
    const hit = memory.get(key);
    if (hit) return hit;
    const file = path.join(dir, `${key}.json`);
    let index: ColumnIndex;
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, "utf8")) as {
        keyword: unknown;
        docs: ColumnDoc[];
        embeddings?: number[][];
        values?: ValueIndex;
      };
      const keyword = MiniSearch.loadJS<ColumnDoc>(saved.keyword as never, {
        fields: ["table", "column", "description", "values"],
        storeFields: ["table", "column"],
        ...INDEX_TOKENIZER,
      });
      index = { keyword, docs: saved.docs, embeddings: saved.embeddings, values: saved.values };
    } else {
      index = buildKeywordIndex(database);
      if (embedder)
        index.embeddings = await embedder.embed(
          // Table, column and description; not the value description (code lists such as "0: no; 1: yes"), which
          // drowns a mean of word vectors.
          index.docs.map((d) => `${d.table}.${d.column}: ${d.description}`.trim()),
        );
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        file,
        JSON.stringify({
          keyword: index.keyword.toJSON(),
          docs: index.docs,
          embeddings: index.embeddings,
          values: index.values,
        }),
      );
    }
    memory.set(key, index);
    return index;
  };
}
