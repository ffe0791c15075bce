export * from './receipts/index.js';
// The export file format (`episodic export`): every line's schema.
export { EXPORT_FORMAT, exportLineSchema } from './transfer/export-format.js';
