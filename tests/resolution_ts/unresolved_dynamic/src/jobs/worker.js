export function runUntyped(job, payload) {
  return job.run(payload);
}

export function runLater(queue, job) {
  queue.push(() => job.run({}));
}
