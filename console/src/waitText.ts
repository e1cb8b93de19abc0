/** `retryAfter` seconds as a person reads them: "42 seconds", "15 minutes", "a moment". */
export function waitText(seconds: number | undefined): string {
  if (seconds === undefined) return 'a moment';
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
