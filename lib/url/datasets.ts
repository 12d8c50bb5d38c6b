import { parseAsInteger, parseAsString } from "nuqs/server";

export const datasetsSearchParams = {
  dataset: parseAsString,
  page: parseAsInteger.withDefault(1),
};

export const QUESTIONS_PAGE_SIZE = 50;
