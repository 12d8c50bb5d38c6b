#!/usr/bin/env node
// `npm start`: serves the existing build as `npm run up` does (this machine only without a token), nothing else.
import { serve } from "./serve.mjs";

serve();
