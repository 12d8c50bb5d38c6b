import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { ROUTES } from "@/lib/api/routes";
import { setScores } from "@/lib/scores/scores";

/** Scores a batch of traces; each refused score is named by its index, the others are stored. */
export const POST = handler(ROUTES.setScores, async ({ body }) => setScores(await getSql(), body.scores));
