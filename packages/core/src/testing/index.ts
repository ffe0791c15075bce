// The conformance suite for store backends lands here (see the runs issue).
export {};
