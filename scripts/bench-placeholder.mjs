// Replaced by the benchmark harness (see the benchmarks issue).
console.log('no benchmarks yet');
