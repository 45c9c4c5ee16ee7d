export function makeCounter(start = 0) {
  let count = start;

  function increment(step = 1) {
    count += step;
    return report();
  }

  const report = () => `count=${count}`;

  return { increment, report };
}
