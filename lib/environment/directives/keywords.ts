/**
 * The deterministic phrase extractor used when no model is configured (pure): identifiers named in the evidence
 * (`Currency = 'EUR'`, `T1.player_api_id`, "X refers to Y"), then the question's content words and their
 * adjacent pairs, most specific first. No SQL words, no filler.
 */
import StemmerDe from "@nlpjs/lang-de/src/stemmer-de.js";

const GERMAN_STOP =
  "der die das den dem des ein eine einer eines einem einen und oder nicht kein keine ist sind war waren wird werden wurde wurden hat haben " +
  "wie viele viel welche welcher welches wer wen wem wessen was wo wann warum alle aller jede jeder jedes jedem mit von vom zu zum zur für auf aus bei " +
  "nach über unter vor im in an am als auch nur mehr meisten weniger zwischen ob wenn dass diese dieser dieses es sie er ihr ihre sein seine denen " +
  "gib geben nenne nennen zeige zeigen liste listen finde finden anzahl lautet lauten heißt heißen gibt statt";

const STOP = new Set(
  (
    "a an the of in on at to for from by with and or not no is are was were be been being this that these those what which who whom whose " +
    "how many much list give show find tell name names please their its his her them they it as than then there here all any each every " +
    "do does did have has had can could would should will shall may might also only just more most less least among between about into " +
    "per whether if when where why while during after before over under up down out off same other such own both either neither " +
    "select from where group order by count sum avg average max min distinct join limit having value values number numbers total " +
    "refer refers referring means mean stand stands indicates indicate using use used one two three first second third calculate percentage ratio " +
    // German, for benchmarks translated to it (Spider-de).
    GERMAN_STOP
  ).split(/\s+/),
);

export function splitIdentifier(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** English (and light German) stemming: the index's and every question's first form of a word. */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  // German plural and case endings (Konzerte, Konzerten → konzert), on longer words only.
  if (word.length > 6 && /[^aeiou](en|e)$/.test(word)) return word.replace(/(en|e)$/, "");
  return word;
}

// Snowball's German stemmer (@nlpjs/lang-de, MIT): "Lehrkräfte" and "Lehrkraft" → lehrkraft, "Namen" and "name" →
// nam, "Läden" and "laden" → lad. Its own file is loaded, not the package's index (sentiment lexicons and the rest).
const germanStemmer = new StemmerDe();
/**
 * A word's German stem, stemmed again until it stays: Snowball removes one ending a pass, so "Kurse" → kurs but
 * "Kurs" → kur (an s after r is an ending too), and the question's "Kurse" missed the table `kurs`. Stemming the stem
 * again brings both to kur. (Two passes are the most any word of Spider-de's schemas and questions takes.)
 */
export function germanStem(word: string): string {
  let w = word;
  for (let pass = 0; pass < 4; pass++) {
    const next = germanStemmer.stemWord(w);
    if (next === w) return w;
    w = next;
  }
  return w;
}

/** The terms the index holds for a text: each word's English stem and, where it differs, its German stem. */
export function indexTerms(text: string): string[] {
  return splitIdentifier(text).flatMap((w) => {
    const a = stem(w);
    const b = germanStem(w);
    return a === b ? [a] : [a, b];
  });
}
/** The terms an English question searches for: its words' English stems only (German stems would conflate). */
export const englishTerms = (text: string): string[] => splitIdentifier(text).map(stem);

// The German stop words that mark a German question: not those English uses too ("die", "was", "in", "an", "am",
// "es", "war", "listen") nor a few forms left out when the rule was written; and some question words that are not
// stop words (question words of Spider-de's design-half databases).
const NOT_MARKERS = new Set(
  "die war viel wen wem was aller jedem im in an am es geben nennen zeigen listen finden statt".split(" "),
);
const GERMAN_MARKERS = new Set([
  ...GERMAN_STOP.split(/\s+/).filter((w) => !NOT_MARKERS.has(w)),
  ..."welchem welchen woher wohin beschreibe berechne zurück liegt kommt kommen befindet bieten".split(" "),
]);
/**
 * Whether a question is German: two of its words are German function words or words with ä, ö, ü or ß (1,028 of
 * Spider-de's 1,030 translated questions, none of BIRD mini-dev's).
 */
export function isGerman(text: string): boolean {
  let n = 0;
  for (const w of splitIdentifier(text)) if ((GERMAN_MARKERS.has(w) || /[äöüß]/.test(w)) && ++n >= 2) return true;
  return false;
}

export function contentWords(text: string): string[] {
  return splitIdentifier(text).filter((w) => !STOP.has(w) && !/^\d+$/.test(w) && w.length > 1);
}

/** Identifiers the evidence names: dotted/underscored/camel-cased tokens, backticked names, left sides of comparisons and "refers to". */
export function evidenceIdentifiers(evidence: string): string[] {
  const out: string[] = [];
  for (const m of evidence.matchAll(/`([^`]+)`/g)) out.push(m[1]);
  for (const m of evidence.matchAll(
    /\b([A-Za-z][\w]*(?:\.[A-Za-z][\w]*)?)\s*(?:=|!=|<>|>=|<=|>|<|\bLIKE\b|\bIN\b|\bBETWEEN\b)/gi,
  ))
    out.push(m[1]);
  for (const m of evidence.matchAll(/\b([A-Za-z]+(?:_[A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)\b/g)) out.push(m[1]);
  for (const m of evidence.matchAll(/(?:refers? to|means?|stands? for)\s+([^;,.]+)/gi)) out.push(m[1]);
  return [...new Set(out.map((s) => s.replace(/^T\d+\./i, "").trim()).filter((s) => s.length > 1))];
}

export function extractPhrases(question: string, evidence: string | null, maxPhrases: number): string[] {
  const phrases: string[] = [];
  const add = (p: string) => {
    const words = contentWords(p);
    if (words.length === 0) return;
    const phrase = words.join(" ");
    if (!phrases.includes(phrase)) phrases.push(phrase);
  };
  if (evidence) evidenceIdentifiers(evidence).forEach(add);
  const words = contentWords(question + (evidence ? ` ${evidence.replace(/'[^']*'/g, " ")}` : ""));
  for (let i = 0; i + 1 < words.length; i++) add(`${words[i]} ${words[i + 1]}`);
  words.forEach(add);
  return phrases.slice(0, maxPhrases);
}
