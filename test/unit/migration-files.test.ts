import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationFileError, readMigrations } from '../../functions/inbox/migrations/index.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A migrations folder holding exactly these files. */
async function folderWith(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'inbox-migrations-'));
  folders.push(folder);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(path.join(folder, name), text)));
  return folder;
}

describe('readMigrations reads NNNN_name.sql files in number order', () => {
  it('returns each file with its text, sorted by number', async () => {
    const folder = await folderWith({ '0002_b.sql': 'SELECT 2;', '0010_c.sql': 'SELECT 10;', '0001_a.sql': 'SELECT 1;' });

    expect(await readMigrations(folder)).toEqual([
      { name: '0001_a.sql', sql: 'SELECT 1;' },
      { name: '0002_b.sql', sql: 'SELECT 2;' },
      { name: '0010_c.sql', sql: 'SELECT 10;' },
    ]);
  });

  it('takes a file URL as well as a path', async () => {
    const folder = await folderWith({ '0001_a.sql': 'SELECT 1;' });

    expect(await readMigrations(new URL(`file://${folder}/`))).toEqual([{ name: '0001_a.sql', sql: 'SELECT 1;' }]);
  });

  it('leaves alone files that are not .sql and folders', async () => {
    const folder = await folderWith({ '0001_a.sql': 'SELECT 1;', 'README.md': '# notes' });
    await mkdir(path.join(folder, '0002_folder.sql'));

    expect((await readMigrations(folder)).map((m) => m.name)).toEqual(['0001_a.sql']);
  });
});

describe('readMigrations refuses a folder it cannot order or apply', () => {
  it.each(['1_short.sql', '0003-dash.sql', '0003_Upper.sql', 'add_table.sql', '0003_x.SQL'])('refuses the misnamed %s, naming it', async (name) => {
    const folder = await folderWith({ '0001_a.sql': 'SELECT 1;', [name]: 'SELECT 3;' });

    const refusal = readMigrations(folder);

    await expect(refusal).rejects.toThrow(MigrationFileError);
    await expect(refusal).rejects.toThrow(`${path.join(folder, name)} is not named like a migration: rename it NNNN_name.sql`);
  });

  it('refuses two files with one number', async () => {
    const folder = await folderWith({ '0001_a.sql': 'SELECT 1;', '0001_b.sql': 'SELECT 2;' });

    await expect(readMigrations(folder)).rejects.toThrow('0001_a.sql and 0001_b.sql share the number 0001');
  });

  it('refuses a file with no statement, comments only included', async () => {
    const folder = await folderWith({ '0001_a.sql': '-- to do;\n/* later */\n' });

    await expect(readMigrations(folder)).rejects.toThrow(/0001_a\.sql holds no statement/);
  });
});
