/** The one file of @nlpjs/lang-de that Metron loads (the package ships no types). */
declare module "@nlpjs/lang-de/src/stemmer-de.js" {
  export default class StemmerDe {
    /** Snowball's German stem of one word, in the case it was given. */
    stemWord(word: string): string;
  }
}
