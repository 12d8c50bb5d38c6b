/**
 * OpenLLMetry with `disableBatch: true` (harnesses/lib/openllmetry.ts): each span is its own export request, the
 * children before their parents, and the root (the workflow) last: a live receiver must not assemble the trace
 * from a part of it.
 */
import { describeOpenLLMetry } from "./lib/openllmetry-suite";

describeOpenLLMetry(true);
