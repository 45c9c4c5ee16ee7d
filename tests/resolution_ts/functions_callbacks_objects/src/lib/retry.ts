export function withRetry<T>(task: () => Promise<T>, attempts = 3): Promise<T> {
  const attempt = async (left: number): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      if (left <= 1) {
        throw error;
      }
      await pause(backoff(attempts - left));
      return attempt(left - 1);
    }
  };
  return attempt(attempts);

  function backoff(step: number): number {
    return 100 * 2 ** step;
  }
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
