import { vi } from 'vitest';

/** The JSON lines a test's code wrote while capturing, and how to stop. */
export interface CapturedOutput {
  /** Every JSON line written to stdout or stderr (Powertools logs, EMF documents, warnings). */
  readonly lines: Record<string, unknown>[];
  /** The EMF documents among them. */
  emf(): Record<string, unknown>[];
  restore(): void;
}

/** Captures what the Powertools utilities write to stdout and stderr, one parsed JSON line each. */
export function captureStdout(): CapturedOutput {
  const lines: Record<string, unknown>[] = [];
  const collect = (chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      try { lines.push(JSON.parse(line)); } catch { /* not a structured line */ }
    }
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(collect), vi.spyOn(process.stderr, 'write').mockImplementation(collect)];
  return { lines, emf: () => lines.filter((line) => '_aws' in line), restore: () => spies.forEach((spy) => spy.mockRestore()) };
}
