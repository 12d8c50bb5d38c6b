/** The simulated demo's names, apart from its seeding code so that pages can label its data without importing it. */
export const DEMO_DATASET = "demo-retail";
export const DEMO_RUN_NAME = "Simulated demo";

/** Whether a dataset (by id) is the demo's generated one: made up by Metron, not a benchmark. */
export const isDemoDataset = (datasetId: string | null | undefined) => datasetId === DEMO_DATASET;
