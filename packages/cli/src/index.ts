export * from './receipts/index.js';
