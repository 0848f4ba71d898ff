#!/usr/bin/env node
// `npx sqs-inbox` (the package's bin): the operator's command line on the process's terminal and environment.
import { hostname, userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { runCli } from './run-cli.js';

async function ask(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  ask,
  stderrTerminal: process.stderr.isTTY === true,
  actor: `${userInfo().username}@${hostname()}`,
});
