/** OpenLLMetry with its default batching span processor (harnesses/lib/openllmetry.ts). */
import { describeOpenLLMetry } from "./lib/openllmetry-suite";

describeOpenLLMetry(false);
